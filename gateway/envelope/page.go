package envelope

import (
	"strconv"

	"github.com/restgate/gateway/mapping"
)

// Page says where a list answer sits in the whole list, so that a client
// can tell whether more items exist and ask for them. It is written as the
// envelope's "page" member, after the result:
//
//	"page": {"start": 20, "size": 10, "total": 57, "next": "/v2/tasks?size=10&start=30"}
//
// A list answer carries a page on every version: older clients that read
// only "result" see the same result as before.
type Page struct {
	// Start is the position of the result's first item in the whole list,
	// counted from 0.
	Start int
	// Size is the number of items in the result.
	Size int
	// Total is the number of items in the whole list; below 0 when the
	// backend does not say (the member is then left out).
	Total int64
	// Next is the gateway path, with its query, that answers the next page;
	// empty when this page is the last (the member is then left out). It is
	// relative to the gateway and names no backend.
	Next string
}

// AppendPage appends `,"page":{...}` for p.
func AppendPage(dst []byte, p Page) []byte {
	dst = append(dst, `,"page":{"start":`...)
	dst = strconv.AppendInt(dst, int64(p.Start), 10)
	dst = append(dst, `,"size":`...)
	dst = strconv.AppendInt(dst, int64(p.Size), 10)
	if p.Total >= 0 {
		dst = append(dst, `,"total":`...)
		dst = strconv.AppendInt(dst, p.Total, 10)
	}
	if p.Next != "" {
		dst = append(dst, `,"next":`...)
		dst = mapping.AppendString(dst, p.Next)
	}
	return append(dst, '}')
}
