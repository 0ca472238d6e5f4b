package activity

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restgate/gateway/gateway/calllog"
)

// minutes of slow calls kept: 15 whole ones and the current.
const slowMinutes = 16

// SlowCall is one of the slowest calls of its minute. Times are in
// milliseconds; Body is masked as the call log masks it.
type SlowCall struct {
	Time       time.Time `json:"time"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Route      string    `json:"route"`
	Version    string    `json:"version"`
	User       string    `json:"user"`
	TotalMs    float64   `json:"totalMs"`
	UpstreamMs float64   `json:"upstreamMs"`
	Status     int       `json:"status"`
	Code       string    `json:"code"`
	TraceID    string    `json:"traceId"`
	Body       string    `json:"body"`
	Duplicate  bool      `json:"duplicate"`
}

// slowEntry is a kept call; body is its masked body, in a buffer the
// entry keeps for the next call that takes its place.
type slowEntry struct {
	c    Call
	body []byte
}

// slowMinute is the slowest calls of one minute.
type slowMinute struct {
	minute atomic.Int64
	// floor is, once entries are full, the smallest total among them (in
	// nanoseconds): a call no slower is not kept, which the hot path
	// checks without the lock. 0 while there is room.
	floor   atomic.Int64
	mu      sync.Mutex
	entries []slowEntry
	n       int
}

// slowest keeps the per slowest calls of each of the last 16 minutes.
type slowest struct {
	per     int
	mask    *calllog.Masker
	minutes [slowMinutes]slowMinute
}

func newSlowest(per int, mask *calllog.Masker) *slowest {
	s := &slowest{per: per, mask: mask}
	for i := range s.minutes {
		s.minutes[i].entries = make([]slowEntry, per)
	}
	return s
}

// offer keeps c when it is among the slowest of its minute so far.
func (s *slowest) offer(c *Call) {
	if s.per == 0 {
		return
	}
	minute := c.End.Unix() / 60
	m := &s.minutes[minute%slowMinutes]
	if m.minute.Load() == minute && int64(c.Total) <= m.floor.Load() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch cur := m.minute.Load(); {
	case cur > minute:
		return // a clock that stepped back
	case cur < minute:
		m.n = 0
		m.floor.Store(0)
		m.minute.Store(minute)
	}
	i := m.n
	if m.n == len(m.entries) {
		i = m.fastest()
		if c.Total <= m.entries[i].c.Total {
			return
		}
	} else {
		m.n++
	}
	e := &m.entries[i]
	e.c = *c
	e.c.Body, e.c.SystemMessage = nil, "" // the body is kept masked; the message is not shown here
	e.body = s.mask.Append(e.body[:0], c.Body)
	if m.n == len(m.entries) {
		m.floor.Store(int64(m.entries[m.fastest()].c.Total))
	}
}

// fastest is the index of the quickest kept call of a full minute.
func (m *slowMinute) fastest() int {
	k := 0
	for i := 1; i < m.n; i++ {
		if m.entries[i].c.Total < m.entries[k].c.Total {
			k = i
		}
	}
	return k
}

// list is the slowest calls that ended after since, slowest first, at most
// limit of them.
func (s *slowest) list(since time.Time, limit int) []SlowCall {
	var out []SlowCall
	for i := range s.minutes {
		m := &s.minutes[i]
		m.mu.Lock()
		for _, e := range m.entries[:m.n] {
			if e.c.End.After(since) {
				out = append(out, slowCallOf(&e.c, e.body))
			}
		}
		m.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b SlowCall) int {
		switch {
		case a.TotalMs > b.TotalMs:
			return -1
		case a.TotalMs < b.TotalMs:
			return 1
		}
		return b.Time.Compare(a.Time)
	})
	return out[:min(len(out), limit)]
}

func slowCallOf(c *Call, body []byte) SlowCall {
	return SlowCall{Time: c.Start, Method: c.Method, Path: c.Path, Route: routeName(c.Route), Version: c.Version,
		User: c.User, TotalMs: millis(c.Total), UpstreamMs: millis(c.Upstream), Status: c.Status, Code: c.Code,
		TraceID: c.TraceID, Body: string(body), Duplicate: c.Duplicate}
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
