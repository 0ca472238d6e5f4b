package adminapi

import (
	"net/http"
	"slices"
	"time"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/reload"
)

// lastReloads is how many reloads the overview lists (the reloads
// operation lists every one kept).
const lastReloads = 5

type overview struct {
	Build         Build        `json:"build"`
	Now           time.Time    `json:"now"`
	StartedAt     time.Time    `json:"startedAt"`
	UptimeSeconds float64      `json:"uptimeSeconds"`
	Config        configInfo   `json:"config"`
	Listeners     Listeners    `json:"listeners"`
	Auth          authInfo     `json:"auth"`
	Access        Access       `json:"access"`
	Recording     bool         `json:"recording"`
	Cluster       clusterInfo  `json:"cluster"`
	CallLog       callLogInfo  `json:"callLog"`
	Traffic       traffic      `json:"traffic"`
	Cache         *cacheTotals `json:"cache"`
}

type configInfo struct {
	Path        string           `json:"path"`
	Revision    string           `json:"revision"`
	LoadedAt    time.Time        `json:"loadedAt"`
	Versions    []string         `json:"versions"`
	Routes      int              `json:"routes"`
	Upstreams   int              `json:"upstreams"`
	LastReloads []reload.Attempt `json:"lastReloads"`
}

type authInfo struct {
	Mode string `json:"mode"`
	// RateLimit is the per-user limit; nil when off.
	RateLimit *rateLimit `json:"rateLimit"`
}

type rateLimit struct {
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	Burst             int     `json:"burst"`
}

type clusterInfo struct {
	Store string `json:"store"`
	// Shared: decisions are taken in Redis, across replicas.
	Shared bool `json:"shared"`
	// State is up, probing or down (deciding alone).
	State     string  `json:"state"`
	Errors    float64 `json:"errors"`
	Fallbacks float64 `json:"fallbacks"`
}

type callLogInfo struct {
	Enabled bool `json:"enabled"`
	// Collector is the collector's URL as safeURL shows it.
	Collector     string             `json:"collector"`
	Sink          string             `json:"sink"`
	Format        string             `json:"format"`
	Queue         string             `json:"queue"`
	Depth         float64            `json:"depth"`
	Sent          float64            `json:"sent"`
	BatchesFailed float64            `json:"batchesFailed"`
	Dropped       map[string]float64 `json:"dropped"`
	DiskEntries   float64            `json:"diskEntries"`
	DiskBytes     float64            `json:"diskBytes"`
}

type traffic struct {
	InFlight float64          `json:"inFlight"`
	Windows  []activity.Stats `json:"windows"`
	Series   []activity.Point `json:"series"`
}

// cacheTotals are the response cache's figures since start, when its
// metrics exist.
type cacheTotals struct {
	// Requests are the cache's lookups by result (hit, miss, stale,
	// revalidated, coalesced, bypass).
	Requests  map[string]float64 `json:"requests"`
	Bytes     *float64           `json:"bytes"`
	Entries   *float64           `json:"entries"`
	Evictions *float64           `json:"evictions"`
}

func (a *api) overview(r *http.Request) (any, error) {
	if err := noQuery(r); err != nil {
		return nil, err
	}
	gw := a.src.Serving()
	cfg := gw.Config
	now := a.src.Now()
	st := a.src.Reloads()
	fams := gather(a.src.Metrics)
	o := overview{Build: a.src.Build, Now: now, StartedAt: a.src.Started, UptimeSeconds: now.Sub(a.src.Started).Seconds(),
		Config: configInfo{Path: st.Path, Revision: st.Revision, LoadedAt: st.LoadedAt, Versions: cfg.Versions,
			Routes: len(gw.Table.Entries()), Upstreams: len(cfg.Upstreams), LastReloads: st.Reloads[:min(len(st.Reloads), lastReloads)]},
		Listeners: a.src.Listeners, Auth: authInfo{Mode: cfg.Auth.Mode}, Access: a.src.Access(),
		Recording: a.src.Activity != nil, Cluster: clusterOf(cfg, fams), CallLog: callLogOf(cfg, fams),
		Cache: cacheOf(fams)}
	if rl := cfg.Auth.RateLimit; rl.RequestsPerSecond > 0 {
		o.Auth.RateLimit = &rateLimit{RequestsPerSecond: rl.RequestsPerSecond, Burst: rl.Burst}
	}
	_, total := a.src.Activity.Routes()
	o.Traffic = traffic{InFlight: fams.sum(metricInFlight), Windows: orEmpty(total.Windows), Series: orEmpty(total.Series)}
	return o, nil
}

func clusterOf(cfg *config.Config, fams families) clusterInfo {
	states := []string{"up", "probing", "down"}
	state := "up"
	if v := int(fams.sum(metricClusterState)); v >= 0 && v < len(states) {
		state = states[v]
	}
	return clusterInfo{Store: cfg.Cluster.Store, Shared: cfg.Cluster.Store == config.StoreRedis, State: state,
		Errors: fams.sum(metricClusterErrors), Fallbacks: fams.sum(metricClusterFallbacks)}
}

func callLogOf(cfg *config.Config, fams families) callLogInfo {
	l := cfg.Log
	c := callLogInfo{Enabled: l.CollectorURL != "", Collector: safeURL(l.CollectorURL), Sink: l.Sink, Format: l.Format,
		Queue: l.Queue, Depth: fams.sum(metricLogDepth), Sent: fams.sum(metricLogSent), BatchesFailed: fams.sum(metricLogFailed),
		Dropped: map[string]float64{}, DiskEntries: fams.sum(metricLogDiskEntries), DiskBytes: fams.sum(metricLogDiskBytes)}
	for _, reason := range calllog.DropReasons() {
		c.Dropped[reason] = 0
	}
	for reason, n := range fams.by(metricLogDropped, "reason") {
		c.Dropped[reason] = n
	}
	return c
}

// cacheOf is the cache's figures, nil when none of its metrics exist.
func cacheOf(fams families) *cacheTotals {
	if !slices.ContainsFunc([]string{metricCacheRequests, metricCacheBytes, metricCacheEntries, metricCacheEvictions}, fams.has) {
		return nil
	}
	c := &cacheTotals{Requests: fams.by(metricCacheRequests, "result")}
	opt := func(name string) *float64 {
		if !fams.has(name) {
			return nil
		}
		v := fams.sum(name)
		return &v
	}
	c.Bytes, c.Entries, c.Evictions = opt(metricCacheBytes), opt(metricCacheEntries), opt(metricCacheEvictions)
	return c
}

// orEmpty is s, or an empty list for nil, so the JSON says [] not null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (a *api) reloads(r *http.Request) (any, error) {
	if err := noQuery(r); err != nil {
		return nil, err
	}
	return a.src.Reloads(), nil
}
