package activity

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"
)

// routesPerUser bounds the routes kept per user and tick.
const routesPerUser = 4

// DuplicateUser is a user who sent the same request again within the
// duplicate window, with the routes of those requests.
type DuplicateUser struct {
	User string `json:"user"`
	// Count is the duplicate requests in the window. When more users sent
	// duplicates in one tick than are kept, a user who took the place of
	// another inherits that one's count: Count is then at most Overcount
	// too high (the heavy hitters always stay).
	Count     uint64           `json:"count"`
	Overcount uint64           `json:"overcount"`
	Routes    []DuplicateRoute `json:"routes"`
	// LastPath and LastTime are the user's latest duplicate.
	LastPath string    `json:"lastPath"`
	LastTime time.Time `json:"lastTime"`
}

// DuplicateRoute is one route of a user's duplicates.
type DuplicateRoute struct {
	Method string `json:"method"`
	Route  string `json:"route"`
	Count  uint64 `json:"count"`
}

type dupRoute struct {
	method, route string
	n             uint64
}

type dupEntry struct {
	user      string
	n, over   uint64
	routes    [routesPerUser]dupRoute
	lastPath  string
	lastTime  time.Time
	routeSeen int
}

// dupTick is the users of one tick, at most the recorder's bound.
type dupTick struct {
	tick    int64
	entries []dupEntry
}

// duplicates counts duplicate requests by user per tick. Duplicates are
// rare next to requests, so one lock guards it all.
type duplicates struct {
	per   int
	mu    sync.Mutex
	ticks [ticks]dupTick
}

func (d *duplicates) add(c *Call, n int64) {
	if d.per == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := &d.ticks[n%ticks]
	switch {
	case t.tick > n:
		return
	case t.tick < n:
		t.tick, t.entries = n, t.entries[:0]
	}
	i := slices.IndexFunc(t.entries, func(e dupEntry) bool { return e.user == c.User })
	if i < 0 {
		if len(t.entries) < d.per {
			if t.entries == nil {
				t.entries = make([]dupEntry, 0, d.per)
			}
			t.entries = append(t.entries, dupEntry{user: c.User})
			i = len(t.entries) - 1
		} else {
			// Space-saving: the least counted user gives up its place and
			// its count, so a user sending many is never crowded out.
			i = 0
			for k := range t.entries {
				if t.entries[k].n < t.entries[i].n {
					i = k
				}
			}
			least := t.entries[i].n
			t.entries[i] = dupEntry{user: c.User, n: least, over: least}
		}
	}
	e := &t.entries[i]
	e.n++
	e.lastPath, e.lastTime = c.Path, c.Start
	e.addRoute(c.Method, routeName(c.Route))
}

// addRoute counts one duplicate on method and route; past routesPerUser
// routes the least counted one gives up its place.
func (e *dupEntry) addRoute(method, route string) {
	for k := range e.routes[:e.routeSeen] {
		if r := &e.routes[k]; r.method == method && r.route == route {
			r.n++
			return
		}
	}
	if e.routeSeen < routesPerUser {
		e.routes[e.routeSeen] = dupRoute{method, route, 1}
		e.routeSeen++
		return
	}
	k := 0
	for j := range e.routes {
		if e.routes[j].n < e.routes[k].n {
			k = j
		}
	}
	e.routes[k] = dupRoute{method, route, e.routes[k].n + 1}
}

// list is the users with the most duplicates in ticks first to last,
// most first, at most limit of them.
func (d *duplicates) list(first, last int64, limit int) []DuplicateUser {
	byUser := map[string]*DuplicateUser{}
	routes := map[string]map[[2]string]uint64{}
	d.mu.Lock()
	for i := range d.ticks {
		t := &d.ticks[i]
		if t.tick < first || t.tick > last {
			continue
		}
		for _, e := range t.entries {
			u := byUser[e.user]
			if u == nil {
				u = &DuplicateUser{User: e.user, Routes: []DuplicateRoute{}}
				byUser[e.user] = u
				routes[e.user] = map[[2]string]uint64{}
			}
			u.Count += e.n
			u.Overcount += e.over
			if e.lastTime.After(u.LastTime) {
				u.LastPath, u.LastTime = e.lastPath, e.lastTime
			}
			for _, r := range e.routes[:e.routeSeen] {
				routes[e.user][[2]string{r.method, r.route}] += r.n
			}
		}
	}
	d.mu.Unlock()
	out := make([]DuplicateUser, 0, len(byUser))
	for user, u := range byUser {
		for k, n := range routes[user] {
			u.Routes = append(u.Routes, DuplicateRoute{Method: k[0], Route: k[1], Count: n})
		}
		slices.SortFunc(u.Routes, func(a, b DuplicateRoute) int {
			if a.Count != b.Count {
				return cmp.Compare(b.Count, a.Count)
			}
			return strings.Compare(a.Route+" "+a.Method, b.Route+" "+b.Method)
		})
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b DuplicateUser) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return strings.Compare(a.User, b.User)
	})
	return out[:min(len(out), limit)]
}
