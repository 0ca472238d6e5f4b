package accounts

import (
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/upstreams/accounts"
)

// maxOffset bounds offset so that it always fits an int and the backend's
// SQL; nobody pages a billion records through this API.
const maxOffset = 1_000_000_000

// parsePage reads the list's limit and offset. Without either (or with
// both empty) the whole list is answered, as the seed says. limit alone
// pages from offset 0; offset alone answers every account after it. A
// parameter that is given is checked, so a typo never silently returns
// everything: it must appear once and be a non-negative decimal integer,
// limit at most maxLimit. A nil page means the whole list.
func parsePage(q url.Values, maxLimit int) (*accounts.Page, error) {
	limit, hasLimit, err := pageParam(q, "limit", maxLimit)
	if err != nil {
		return nil, err
	}
	offset, hasOffset, err := pageParam(q, "offset", maxOffset)
	if err != nil {
		return nil, err
	}
	switch {
	case !hasLimit && !hasOffset:
		return nil, nil
	case !hasLimit:
		limit = -1
	}
	return &accounts.Page{Limit: limit, Offset: offset}, nil
}

// pageOf is the page member of a list answer: where the answer sits, the
// total when the adapter knows it, and, when more accounts may follow, the
// request again with offset moved past this page. The whole list (no
// page) is part of nothing longer and has none.
func pageOf(r *http.Request, q url.Values, page *accounts.Page, at accounts.Placement) *envelope.Page {
	if page == nil {
		return nil
	}
	p := &envelope.Page{Start: at.Start, Size: at.Size, Total: at.Total}
	if at.More && page != nil && page.Limit > 0 {
		next := maps.Clone(q)
		next.Set("limit", strconv.Itoa(page.Limit))
		next.Set("offset", strconv.Itoa(at.Start+at.Size))
		p.Next = r.URL.EscapedPath() + "?" + next.Encode()
	}
	return p
}

func pageParam(q url.Values, name string, max int) (n int, given bool, err error) {
	vals := q[name]
	if len(vals) == 0 || len(vals) == 1 && vals[0] == "" {
		return 0, false, nil
	}
	if len(vals) > 1 {
		return 0, false, envelope.InvalidParameter(name, "given more than once")
	}
	n, ok := parseCount(vals[0], max)
	if !ok {
		return 0, false, envelope.InvalidParameter(name, "must be an integer from 0 to "+strconv.Itoa(max))
	}
	return n, true, nil
}

// parseCount accepts only plain decimal digits (no sign, space or
// exponent) up to max.
func parseCount(s string, max int) (int, bool) {
	if s == "" || len(s) > 10 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= max
}
