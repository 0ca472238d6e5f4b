package proxy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/handlers/data"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// CursorParam is the query parameter of a proxy route over a paged query
// that asks for the batch after the previous one: the page.next of an
// answer carries it.
const CursorParam = "cursor"

// maxCursor bounds a cursor: a query locator, at most a few kilobytes.
const maxCursor = 8 << 10

// cursor reads the request's cursor: "" when absent. A cursor that is not
// a query locator is PARAMETER_INVALID.
func cursor(r *http.Request) (string, error) {
	vals := r.URL.Query()[CursorParam]
	switch {
	case len(vals) == 0:
		return "", nil
	case len(vals) > 1:
		return "", envelope.InvalidParameter(CursorParam, "given more than once")
	}
	c := vals[0]
	if c == "" || len(c) > maxCursor || strings.Trim(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
		return "", envelope.InvalidParameter(CursorParam, "must be the cursor of a page.next")
	}
	return c, nil
}

// batch is what a paged query answer says about its place in the list.
type batch struct {
	TotalSize      *int64            `json:"totalSize"`
	NextRecordsURL *string           `json:"nextRecordsUrl"`
	Records        []json.RawMessage `json:"records"`
}

// records answers a data API query answer (whole) as the route's result:
// its resultPath member (records), every record key-mapped by its own type
// and its backend addresses rewritten, with a page whose next is this
// route's path with the cursor of the backend's next batch. Nothing of a
// longer list is dropped silently.
func (p *proxy) records(r *http.Request, c *call.Call, answer []byte, cur string) (call.Result, error) {
	if len(bytes.TrimSpace(answer)) == 0 {
		return call.Result{}, nil
	}
	var b batch
	if answer[0] == '{' {
		if err := json.Unmarshal(answer, &b); err != nil {
			return call.Result{}, call.Upstream(p.invalid("the answer is not valid JSON: %v", err), "")
		}
	}
	var page *envelope.Page
	if b.TotalSize != nil || b.Records != nil {
		page = &envelope.Page{Start: start(cur), Size: len(b.Records), Total: -1}
		if b.TotalSize != nil {
			page.Total = *b.TotalSize
		}
	}
	if b.NextRecordsURL != nil && page != nil {
		loc, ok := dataapi.Locator(*b.NextRecordsURL)
		if !ok {
			return call.Result{}, call.Upstream(p.invalid("nextRecordsUrl is not a query locator"), "")
		}
		page.Next = nextPath(r, p.target.pass, loc)
	}
	result := answer
	if p.resultPath != "" {
		m, err := member(answer, p.resultPath)
		if err != nil {
			return call.Result{}, call.Upstream(p.invalid("%v", err), "")
		}
		result = m
	}
	o := c.Options
	opts := mapping.Options{Links: p.links.Links(c.Version), MaxDepth: p.opts.MaxDepth, MaxOutput: -1}
	form := call.ExposedNames
	var types *data.TypeMaps
	if o != nil {
		opts.Select = o.Select
		if o.MapKeys {
			opts.Map = o.KeyMap
			types = p.backend.Records.TypeMaps(r.Context(), p.opts.Table, c.Version)
			opts.Types = types.Lookup
			form = call.MappedByHandler
		}
	}
	out, err := mapping.Rewrite(nil, result, opts)
	if types != nil && types.Err() != nil {
		return call.Result{}, call.Upstream(types.Err(), envelope.SObjectOperationFailed)
	}
	if err != nil {
		return call.Result{}, call.Upstream(p.invalid("the answer is not valid JSON: %v", err), "")
	}
	return call.Result{JSON: out, Form: form, Page: page}, nil
}

// start is the position a cursor's batch starts at: the number a query
// locator ends with ("01g...-2000"), 0 for the first batch.
func start(cur string) int {
	if i := strings.LastIndexByte(cur, '-'); i >= 0 {
		if n, err := strconv.Atoi(cur[i+1:]); err == nil && n >= 0 {
			return n
		}
	}
	return 0
}

// nextPath is the request's path with the passed query parameters and the
// cursor of the next batch.
func nextPath(r *http.Request, pass []string, loc string) string {
	q := url.Values{}
	in := r.URL.Query()
	for _, name := range pass {
		if name != CursorParam {
			q[name] = in[name]
		}
	}
	q.Set(CursorParam, loc)
	return r.URL.EscapedPath() + "?" + q.Encode()
}
