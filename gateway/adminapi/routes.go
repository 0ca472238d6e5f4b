package adminapi

import (
	"net/http"
	"slices"
	"time"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/routes"
)

type routesAnswer struct {
	Recording bool `json:"recording"`
	// Routes are the route table as `gateway check` prints it, in config
	// order, each with its figures.
	Routes []routeAnswer `json:"routes"`
	// Other are the figures of requests on no route of the table:
	// unmatched ones, routes a reload removed, and the series past
	// console.maxSeries.
	Other []activity.RouteStats `json:"other"`
	Total activity.RouteStats   `json:"total"`
}

type routeAnswer struct {
	routes.Row
	Windows []activity.Stats `json:"windows"`
	Series  []activity.Point `json:"series"`
	// Cache are the response cache's lookups on the route by result,
	// since start; nil when the cache's metrics do not exist.
	Cache map[string]float64 `json:"cache"`
}

func (a *api) routes(r *http.Request) (any, error) {
	if err := noQuery(r); err != nil {
		return nil, err
	}
	gw := a.src.Serving()
	stats, total := a.src.Activity.Routes()
	byKey := map[activity.RouteKey]activity.RouteStats{}
	for _, s := range stats {
		byKey[s.RouteKey] = s
	}
	fams := gather(a.src.Metrics)
	cache := fams.by2(metricCacheRequests, "route", "result")
	hasCache := fams.has(metricCacheRequests)
	ans := routesAnswer{Recording: a.src.Activity != nil, Routes: []routeAnswer{}, Other: []activity.RouteStats{}, Total: total}
	if total.Windows == nil {
		ans.Total = activity.RouteStats{Windows: []activity.Stats{}, Series: []activity.Point{}}
	}
	for _, row := range gw.Table.Rows() {
		k := activity.RouteKey{Method: row.Method, Route: row.Template}
		s := byKey[k]
		delete(byKey, k)
		ra := routeAnswer{Row: row, Windows: orEmpty(s.Windows), Series: orEmpty(s.Series)}
		if hasCache {
			ra.Cache = orZero(cache[row.Template])
		}
		ans.Routes = append(ans.Routes, ra)
	}
	for _, s := range stats {
		if _, left := byKey[s.RouteKey]; left {
			ans.Other = append(ans.Other, s)
		}
	}
	return ans, nil
}

type upstreamsAnswer struct {
	Recording bool             `json:"recording"`
	Upstreams []upstreamAnswer `json:"upstreams"`
}

type upstreamAnswer struct {
	Name string `json:"name"`
	// URL is the configured URL without user info and with its query
	// values masked.
	URL         string           `json:"url"`
	Breaker     breakerAnswer    `json:"breaker"`
	Concurrency concurrency      `json:"concurrency"`
	Windows     []activity.Stats `json:"windows"`
	Series      []activity.Point `json:"series"`
	// Token is the OAuth token's state; nil without OAuth.
	Token *tokenAnswer `json:"token"`
	// Routes are the routes calling the upstream, as "METHOD template".
	Routes []string `json:"routes"`
	// Cache are the cache's lookups on its routes by result, since start;
	// nil when the cache's metrics do not exist.
	Cache map[string]float64 `json:"cache"`
	// Allowance is the upstream's API allowance; nil when its metrics do
	// not exist for it.
	Allowance *allowance `json:"allowance"`
}

type breakerAnswer struct {
	State   string                `json:"state"`
	History []activity.Transition `json:"history"`
}

type concurrency struct {
	Limit    int  `json:"limit"`
	Adaptive bool `json:"adaptive"`
	InFlight int  `json:"inFlight"`
	Waiting  int  `json:"waiting"`
}

type tokenAnswer struct {
	Flow string `json:"flow"`
	Held bool   `json:"held"`
	// Expiry is the held token's stated expiry; nil when none was stated.
	Expiry      *time.Time `json:"expiry"`
	Refreshed   *time.Time `json:"refreshed"`
	LastError   string     `json:"lastError"`
	LastErrorAt *time.Time `json:"lastErrorAt"`
}

type allowance struct {
	Used  *float64 `json:"used"`
	Limit *float64 `json:"limit"`
}

func (a *api) upstreams(r *http.Request) (any, error) {
	if err := noQuery(r); err != nil {
		return nil, err
	}
	cfg := a.src.Serving().Config
	names := make([]string, 0, len(cfg.Upstreams))
	for name := range cfg.Upstreams {
		names = append(names, name)
	}
	slices.Sort(names)
	stats := a.src.Activity.Upstreams(names)
	fams := gather(a.src.Metrics)
	cache := fams.by2(metricCacheRequests, "route", "result")
	hasCache := fams.has(metricCacheRequests)
	used, limit := fams.by(metricAllowanceUsed, "upstream"), fams.by(metricAllowanceLimit, "upstream")
	ans := upstreamsAnswer{Recording: a.src.Activity != nil, Upstreams: []upstreamAnswer{}}
	rows := a.src.Serving().Table.Rows()
	for _, name := range names {
		s := stats[name]
		u := upstreamAnswer{Name: name, URL: safeURL(cfg.Upstreams[name].URL), Windows: orEmpty(s.Windows),
			Series: orEmpty(s.Series), Routes: []string{}, Breaker: breakerAnswer{State: "closed", History: orEmpty(s.Breaker)}}
		if c := a.src.Upstreams.Client(name); c != nil {
			st := c.State()
			u.Breaker.State = st.Breaker
			u.Concurrency = concurrency{Limit: st.Limit, Adaptive: st.Adaptive, InFlight: st.InFlight, Waiting: st.Waiting}
			if t := st.Token; t != nil {
				u.Token = &tokenAnswer{Flow: t.Flow, Held: t.Held, Expiry: timeOrNil(t.Expiry), Refreshed: timeOrNil(t.Refreshed),
					LastError: t.LastError, LastErrorAt: timeOrNil(t.LastErrorAt)}
			}
		}
		for _, row := range rows {
			if row.Upstream == name {
				u.Routes = append(u.Routes, row.Method+" "+row.Template)
			}
		}
		if hasCache {
			u.Cache = cacheOfTemplates(cache, rows, name)
		}
		_, hasUsed := used[name]
		_, hasLimit := limit[name]
		if hasUsed || hasLimit {
			u.Allowance = &allowance{Used: valueOrNil(used, name), Limit: valueOrNil(limit, name)}
		}
		ans.Upstreams = append(ans.Upstreams, u)
	}
	return ans, nil
}

// cacheOfTemplates sums the cache's lookups of the templates whose routes
// call upstream, each template once.
func cacheOfTemplates(cache map[string]map[string]float64, rows []routes.Row, upstream string) map[string]float64 {
	out := map[string]float64{}
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Upstream != upstream || seen[row.Template] {
			continue
		}
		seen[row.Template] = true
		for result, n := range cache[row.Template] {
			out[result] += n
		}
	}
	return out
}

func orZero(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}

func valueOrNil(m map[string]float64, k string) *float64 {
	v, ok := m[k]
	if !ok {
		return nil
	}
	return &v
}

// timeOrNil is t, nil when zero.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
