package accounts

import (
	"bytes"
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
	// Uncounted, with backend paging, has List return the answer without
	// counting its records (judged as a JSON array by its ends only, as the
	// whole list is), its Placement's Size -1: for a caller that counts them
	// as it reads the answer anyway (the gateway's writer, in its rewrite)
	// and completes the placement with Place, instead of one more pass over
	// the list here. With adapter paging it changes nothing.
	Uncounted bool
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
// placement: for the whole list Size and Total are -1, the list not being
// counted, for a page they are known. How the page is made is the client's
// Paging option.
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
	if page == nil || page.Uncounted && c.opts.Paging == PagingBackend {
		// The whole list, as the hot path asks for it, or a page its caller
		// counts: not walked here (the gateway's writer rewrites and
		// validates every byte of it anyway), so its placement is unknown.
		ans, err := c.call(ctx, http.MethodGet, u, nil, wholeList)
		if err != nil {
			return nil, Placement{}, err
		}
		if page != nil {
			return ans, Placement{Start: page.Offset, Size: -1, Total: -1}, nil
		}
		return ans, Placement{Size: -1, Total: -1}, nil
	}
	var p Placement
	ans, err := c.call(ctx, http.MethodGet, u, nil, func(a *upstreams.Answer) (err error) {
		p, err = c.cut(a, page)
		return err
	})
	if err != nil {
		return nil, Placement{}, err
	}
	return ans, p, nil
}

// wholeList judges the answer of the whole list: it must have the shape
// of an array.
func wholeList(a *upstreams.Answer) error {
	if !isJSONArray(a.JSON) {
		return invalid("list is not a JSON array", nil)
	}
	return nil
}

// cut judges the answer of a page and makes a.JSON that page, cut by the
// adapter when the backend does not page.
func (c *Client) cut(a *upstreams.Answer, page *Page) (Placement, error) {
	n, ok := jsonspan.Count(a.JSON)
	if !ok {
		return Placement{}, invalid("list is not a JSON array", nil)
	}
	if c.opts.Paging == PagingBackend {
		return Place(page, n)
	}
	out, p, err := window(a.JSON, page.Offset, page.Limit)
	if err != nil {
		return Placement{}, invalid("list is not a JSON array", err)
	}
	a.JSON = out
	return p, nil
}

// Place is the placement of a backend-paged answer of n records to page,
// or the error (KindInvalid, 502) of a backend that answered more records
// than the page's limit: it does not page, and would answer every call with
// the whole list.
func Place(page *Page, n int) (Placement, error) {
	if page.Limit >= 0 && n > page.Limit {
		return Placement{}, invalid(fmt.Sprintf("the account controller answered %d accounts for limit %d: it does not page "+
			"(set the upstream's options.paging to adapter)", n, page.Limit), nil)
	}
	p := Placement{Start: page.Offset, Size: n, Total: -1, More: page.Limit >= 0 && n == page.Limit && n > 0}
	if page.Limit < 0 {
		p.Total = int64(page.Offset + n)
	}
	return p, nil
}

// isJSONArray reports whether body has the shape of one JSON array. It does
// not validate the elements: the gateway's writer rewrites every byte of the
// answer anyway and answers CALLOUT_FAILED for invalid JSON, so a second
// full scan here would only double the cost of every list.
func isJSONArray(body []byte) bool {
	t := bytes.TrimSpace(body)
	return len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']'
}
