package workflow

import (
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"github.com/restgate/gateway/gateway/envelope"
	engine "github.com/restgate/gateway/upstreams/workflow"
)

// page places a list the engine answered in the whole list. Next repeats
// the request with start moved past this page and the page size made
// explicit, so that following it walks the list however the engine's
// default size changes; it is left out on the last page.
func page(r *http.Request, q url.Values, l engine.List, size int) *envelope.Page {
	if size == 0 {
		size = engine.DefaultSize
	}
	p := &envelope.Page{Start: l.Start, Size: l.Size, Total: l.Total}
	more := l.Total < 0 && l.Size == size || l.Total >= 0 && int64(l.Start+l.Size) < l.Total
	if more && l.Size > 0 {
		next := maps.Clone(q)
		if next == nil {
			next = url.Values{}
		}
		next.Set("start", strconv.Itoa(l.Start+l.Size))
		next.Set("size", strconv.Itoa(size))
		p.Next = r.URL.EscapedPath() + "?" + next.Encode()
	}
	return p
}
