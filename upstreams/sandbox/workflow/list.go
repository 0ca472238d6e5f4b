package workflow

import (
	"fmt"
	"net/url"
	"strconv"
)

// listJSON is the engine's list envelope; size is the number of items
// in data.
type listJSON struct {
	Data  any    `json:"data"`
	Total int    `json:"total"`
	Start int    `json:"start"`
	Sort  string `json:"sort"`
	Order string `json:"order"`
	Size  int    `json:"size"`
}

// page is a list request's paging: start, size, the sort property as the
// caller named it, its SQL expression and the order.
type page struct {
	start, size int
	sort, expr  string
	order       string
}

// parsePage reads start, size, sort and order as the engine does: a
// negative start or size falls back to the default, a non-integer is 400,
// and so are a sort outside sorts and an order other than asc/desc.
func parsePage(q url.Values, defaultSort string, sorts map[string]string) (page, error) {
	p := page{start: 0, size: 10, sort: defaultSort, order: "asc"}
	for name, dst := range map[string]*int{"start": &p.start, "size": &p.size} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return page{}, badRequest("Illegal value for param '%s': '%s' is not an integer", name, v)
		}
		if n >= 0 {
			*dst = n
		}
	}
	if v := q.Get("sort"); v != "" {
		p.sort = v
	}
	expr, ok := sorts[p.sort]
	if !ok {
		return page{}, badRequest("Value for param 'sort' is not valid, '%s' is not a valid property", p.sort)
	}
	p.expr = expr
	if v := q.Get("order"); v != "" {
		p.order = v
	}
	if p.order != "asc" && p.order != "desc" {
		return page{}, badRequest("Value for param 'order' is not valid : '%s', must be 'asc' or 'desc'", p.order)
	}
	return p, nil
}

// orderBy is the ORDER BY ... LIMIT clause of p; ties go by id in the same
// direction (ids grow with creation), so pages do not overlap and records
// made in the same millisecond keep their creation order.
func (p page) orderBy(idColumn string) string {
	return fmt.Sprintf(" ORDER BY %s %s, %s %s LIMIT %d OFFSET %d", p.expr, p.order, idColumn, p.order, p.size, p.start)
}
