package activity

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/restgate/gateway/gateway/calllog"
)

// maxMessageBytes bounds the system message kept per response code.
const maxMessageBytes = 4 << 10

// errKey is one series of the error counts: a response code on a route
// (method and template) and the upstream it reports on ("" for none).
type errKey struct {
	code, method, route, upstream string
}

// errCounts counts one key's errors per tick.
type errCounts struct {
	ticks [ticks]struct {
		tick int64
		n    uint32
	}
}

func (e *errCounts) add(n int64) {
	t := &e.ticks[n%ticks]
	switch {
	case t.tick > n:
		return
	case t.tick < n:
		t.tick, t.n = n, 0
	}
	t.n++
}

func (e *errCounts) sum(first, last int64) uint64 {
	var total uint64
	for _, t := range e.ticks {
		if t.tick >= first && t.tick <= last {
			total += uint64(t.n)
		}
	}
	return total
}

// lastError is the latest error of one response code.
type lastError struct {
	time                    time.Time
	status                  int
	method, path, route     string
	traceID, user, upstream string
	// message is the system message cut to maxMessageBytes, in a buffer
	// kept for the next one.
	message []byte
}

// errorsByCode counts errors by response code, route and upstream, and
// keeps each code's last system message. Errors are few next to requests
// (one lock guards it all); a flood of one error finds its key and adds.
type errorsByCode struct {
	max  int
	mu   sync.Mutex
	keys map[errKey]*errCounts
	last map[string]*lastError
}

// overflowRoute is the route of the errors past the bound on keys.
const overflowRoute = "(other)"

func newErrorsByCode(max int) *errorsByCode {
	return &errorsByCode{max: max, keys: map[errKey]*errCounts{}, last: map[string]*lastError{}}
}

func (e *errorsByCode) add(c *Call, n int64) {
	k := errKey{code: c.Code, method: c.Method, route: routeName(c.Route), upstream: c.ErrorUpstream}
	e.mu.Lock()
	defer e.mu.Unlock()
	counts := e.keys[k]
	if counts == nil {
		if len(e.keys) >= e.max {
			k.method, k.route, k.upstream = "", overflowRoute, ""
			counts = e.keys[k]
		}
		if counts == nil {
			counts = &errCounts{}
			e.keys[k] = counts
		}
	}
	counts.add(n)
	l := e.last[c.Code]
	if l == nil {
		if len(e.last) >= e.max {
			return
		}
		l = &lastError{}
		e.last[c.Code] = l
	}
	if c.End.Before(l.time) {
		return
	}
	l.time, l.status, l.method, l.path, l.route = c.Start, c.Status, c.Method, c.Path, k.route
	l.traceID, l.user, l.upstream = c.TraceID, c.User, c.ErrorUpstream
	l.message = calllog.AppendTruncated(l.message[:0], c.SystemMessage, maxMessageBytes, 0)
}

// ErrorCode is the errors of one response-code id.
type ErrorCode struct {
	Code string `json:"code"`
	// Counts has one count per window (1m, 5m, 15m).
	Counts     []WindowCount `json:"counts"`
	Last       *LastError    `json:"last"`
	ByRoute    []ErrorSplit  `json:"byRoute"`
	ByUpstream []ErrorSplit  `json:"byUpstream"`
}

// WindowCount is a count over a window.
type WindowCount struct {
	Window string `json:"window"`
	Count  uint64 `json:"count"`
}

// ErrorSplit is the part of a code's errors on one route (Method and
// Route) or from one upstream (Upstream), per window.
type ErrorSplit struct {
	Method   string        `json:"method,omitempty"`
	Route    string        `json:"route,omitempty"`
	Upstream string        `json:"upstream,omitempty"`
	Counts   []WindowCount `json:"counts"`
}

// LastError is a code's latest error, its system message masked as the
// call log masks bodies and cut to 4 KiB.
type LastError struct {
	Time          time.Time `json:"time"`
	Status        int       `json:"status"`
	Method        string    `json:"method"`
	Path          string    `json:"path"`
	Route         string    `json:"route"`
	Upstream      string    `json:"upstream"`
	User          string    `json:"user"`
	TraceID       string    `json:"traceId"`
	SystemMessage string    `json:"systemMessage"`
}

// list is every code with errors in the last 15 minutes, most errors
// first.
func (e *errorsByCode) list(current int64) []ErrorCode {
	ws := Windows()
	counts := func(c *errCounts) []WindowCount {
		out := make([]WindowCount, len(ws))
		for i, w := range ws {
			out[i] = WindowCount{Window: w.Name, Count: c.sum(current-w.Ticks, current)}
		}
		return out
	}
	byCode := map[string]*ErrorCode{}
	routes := map[string]map[[2]string]*errCounts{}
	ups := map[string]map[string]*errCounts{}
	e.mu.Lock()
	for k, c := range e.keys {
		if c.sum(current-ws[len(ws)-1].Ticks, current) == 0 {
			continue
		}
		if byCode[k.code] == nil {
			byCode[k.code] = &ErrorCode{Code: k.code, ByRoute: []ErrorSplit{}, ByUpstream: []ErrorSplit{}}
			routes[k.code] = map[[2]string]*errCounts{}
			ups[k.code] = map[string]*errCounts{}
		}
		merge(routes[k.code], [2]string{k.method, k.route}, c)
		if k.upstream != "" {
			merge(ups[k.code], k.upstream, c)
		}
	}
	out := make([]ErrorCode, 0, len(byCode))
	for code, ec := range byCode {
		var all errCounts
		for rk, c := range routes[code] {
			ec.ByRoute = append(ec.ByRoute, ErrorSplit{Method: rk[0], Route: rk[1], Counts: counts(c)})
			mergeInto(&all, c)
		}
		for name, c := range ups[code] {
			ec.ByUpstream = append(ec.ByUpstream, ErrorSplit{Upstream: name, Counts: counts(c)})
		}
		ec.Counts = counts(&all)
		if l := e.last[code]; l != nil {
			ec.Last = &LastError{Time: l.time, Status: l.status, Method: l.method, Path: l.path, Route: l.route,
				Upstream: l.upstream, User: l.user, TraceID: l.traceID, SystemMessage: string(l.message)}
		}
		sortSplits(ec.ByRoute)
		sortSplits(ec.ByUpstream)
		out = append(out, *ec)
	}
	e.mu.Unlock()
	slices.SortFunc(out, func(a, b ErrorCode) int {
		if c := cmp.Compare(b.Counts[len(b.Counts)-1].Count, a.Counts[len(a.Counts)-1].Count); c != 0 {
			return c
		}
		return strings.Compare(a.Code, b.Code)
	})
	return out
}

// merge adds c into m[k], made on first use.
func merge[K comparable](m map[K]*errCounts, k K, c *errCounts) {
	if m[k] == nil {
		m[k] = &errCounts{}
	}
	mergeInto(m[k], c)
}

// mergeInto adds c's ticks into dst's, slot by slot: both rings place a
// tick in the same slot, and a slot of an older tick is replaced.
func mergeInto(dst, c *errCounts) {
	for i, t := range c.ticks {
		d := &dst.ticks[i]
		switch {
		case t.tick > d.tick:
			d.tick, d.n = t.tick, t.n
		case t.tick == d.tick:
			d.n += t.n
		}
	}
}

// sortSplits orders splits by their largest window's count, most first.
func sortSplits(s []ErrorSplit) {
	slices.SortFunc(s, func(a, b ErrorSplit) int {
		if c := cmp.Compare(b.Counts[len(b.Counts)-1].Count, a.Counts[len(a.Counts)-1].Count); c != 0 {
			return c
		}
		return strings.Compare(a.Route+a.Method+a.Upstream, b.Route+b.Method+b.Upstream)
	})
}
