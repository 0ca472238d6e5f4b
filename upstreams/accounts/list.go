package accounts

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/jsonspan"
)

// Page selects a window of the account list: Offset records skipped, then
// at most Limit; a negative Limit means every record after Offset. Offset
// must not be negative.
type Page struct {
	Limit  int
	Offset int
}

// Placement says where a list answer sits in the whole list.
type Placement struct {
	// Start is the position of the answer's first record, Size the number
	// of records in it.
	Start, Size int
	// Total is the number of records in the whole list, -1 when the
	// backend pages and does not say.
	Total int64
	// More says that records may follow this answer: a page of the whole
	// list with records after it, or, when the total is not known, a full
	// page.
	More bool
}

// List returns the JSON array of accounts of page (nil: the whole list) in
// the answer's JSON, valid until the caller releases the answer, and its
// placement. How the page is made is the client's Paging option.
func (c *Client) List(ctx context.Context, page *Page) (*upstreams.Answer, Placement, error) {
	if page != nil && page.Offset < 0 {
		return nil, Placement{}, rejected("offset must not be negative")
	}
	u := c.base
	if page != nil && c.opts.Paging == PagingBackend {
		q := url.Values{"offset": {strconv.Itoa(page.Offset)}}
		if page.Limit >= 0 {
			q.Set("limit", strconv.Itoa(page.Limit))
		}
		u += "?" + q.Encode()
	}
	ans, err := c.call(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, Placement{}, err
	}
	n, ok := jsonspan.Count(ans.JSON)
	if !ok {
		ans.Release()
		return nil, Placement{}, invalid("list is not a JSON array", nil)
	}
	switch {
	case page == nil:
		return ans, Placement{Size: n, Total: int64(n)}, nil
	case c.opts.Paging == PagingBackend:
		if page.Limit >= 0 && n > page.Limit {
			ans.Release()
			return nil, Placement{}, invalid(fmt.Sprintf("the account controller answered %d accounts for limit %d: it does not page "+
				"(set the upstream's options.paging to adapter)", n, page.Limit), nil)
		}
		p := Placement{Start: page.Offset, Size: n, Total: -1, More: page.Limit >= 0 && n == page.Limit && n > 0}
		if page.Limit < 0 {
			p.Total = int64(page.Offset + n)
		}
		return ans, p, nil
	}
	out, p, err := window(ans.JSON, page.Offset, page.Limit)
	if err != nil {
		ans.Release()
		return nil, Placement{}, invalid("list is not a JSON array", err)
	}
	ans.JSON = out
	return ans, p, nil
}
