package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster"
	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/upstreams/sandbox"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

func keyDigest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// allowanceConfig is a gateway of API keys in front of the sandbox org at
// dataURL: reader's key has a daily quota of perDay, ops's is essential,
// and the data upstream keeps reserve calls of the org's allowance.
func allowanceConfig(dataURL, reserve string, perDay int, redisURL string) string {
	store := "memory"
	if redisURL != "" {
		store = "redis"
	}
	return fmt.Sprintf(`versions: [v2]
server: {tls: {mode: "off"}}
auth:
  mode: apikey
  apiKeys:
    - {sha256: %s, userId: reader, roles: [reader], quota: {perDay: %d}}
    - {sha256: %s, userId: ops, roles: [ops], essential: true}
upstreams:
  data:
    url: %s
    auth: {bearerToken: sandbox-token}
    retry: {attempts: 1}
    allowance: {reserve: %q}
    options: {apiVersion: v62.0}
routes:
  - {path: "/{version}/settings/endpoints", kind: endpoints}
  - {path: "/{version}/sobjects", kind: data, action: sobjects, upstream: data}
  - {path: "/{version}/sobjects/{type}/describe", kind: data, action: describe, upstream: data, essential: true}
cluster: {store: %s, redis: {url: %q, keyPrefix: "allowance-test:"}}
`, keyDigest("reader-key"), perDay, keyDigest("ops-key"), dataURL, reserve, store, redisURL)
}

// replica is one gateway of the deployment, wired as cmd/gateway wires it.
type replica struct {
	handler http.Handler
	reg     *prometheus.Registry
	now     func() time.Time
}

func newReplica(t *testing.T, yaml string, now func() time.Time) *replica {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), func(string) string { return "" })
	require.NoError(t, err)
	cfg.Server.DataDir = t.TempDir()
	cfg.Cluster.Redis.Timeout = 2 * time.Second // a loaded test machine must not fall back
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "test"})
	require.NoError(t, err)
	store, err := cluster.Open(cfg.Cluster, m, discardLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{}, Cluster: store, Now: now,
		Duplicates: duplicates.New(time.Minute, 100),
		Upstreams:  NewUpstreamSet(m, func(string, string) (string, error) { return "", fmt.Errorf("no sandbox here") })}
	gw, err := Build(t.Context(), cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	return &replica{handler: gw.Handler, reg: reg, now: now}
}

func (r *replica) get(path, key string) *httptest.ResponseRecorder {
	return serve(r.handler, http.MethodGet, path, map[string]string{"X-API-Key": key}, "")
}

// startOrg starts the sandbox org with an allowance of limit calls.
func startOrg(t *testing.T, limit int) (*sandbox.Server, string) {
	t.Helper()
	sb, err := sandbox.StartWith(t.TempDir(), discardLogger(), sandbox.Options{Org: sfdc.OrgOptions{DailyAPIRequests: limit}})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sb.Close(ctx)
	})
	u, err := sb.URL("data", "")
	require.NoError(t, err)
	return sb, u
}

// spend makes n counted calls to the org directly, as another integration
// of the company would.
func spend(t *testing.T, dataURL string, n int) {
	t.Helper()
	for range n {
		req, err := http.NewRequest(http.MethodGet, dataURL+"/services/data/v62.0/limits", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer sandbox-token")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
}

func TestQuotaFieldsAndRefusal(t *testing.T) {
	t.Parallel()
	_, dataURL := startOrg(t, 1000)
	at := time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC) // two hours before the day's quota starts again
	gw := newReplica(t, allowanceConfig(dataURL, "", 2, ""), func() time.Time { return at })
	for i := range 2 {
		rec := gw.get("/v2/settings/endpoints", "reader-key")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.Equal(t, `"day";q=2;w=86400`, rec.Header().Get("RateLimit-Policy"))
		assert.Equal(t, fmt.Sprintf(`"day";r=%d;t=7200`, 1-i), rec.Header().Get("RateLimit"))
	}
	rec := gw.get("/v2/settings/endpoints", "reader-key")
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	env := envelopeOf(t, rec)
	assert.Equal(t, "RATE_LIMITED", responseID(env))
	assert.Contains(t, rec.Body.String(), `the quota \"day\" of 2 requests is used up`)
	assert.Equal(t, "7200", rec.Header().Get("Retry-After"), "until the UTC day starts again")
	assert.Equal(t, `"day";r=0;t=7200`, rec.Header().Get("RateLimit"))

	other := gw.get("/v2/settings/endpoints", "ops-key")
	assert.Equal(t, http.StatusOK, other.Code)
	assert.Empty(t, other.Header().Get("RateLimit-Policy"), "a caller without a quota is not limited")
	assert.NoError(t, testutil.GatherAndCompare(gw.reg, strings.NewReader(`
# HELP gateway_quota_requests_total Requests of limited callers by quota policy and result: allowed, or refused (RATE_LIMITED 429) because a window is used up.
# TYPE gateway_quota_requests_total counter
gateway_quota_requests_total{quota="key:reader:`+keyDigest("reader-key")[:8]+`",result="allowed"} 2
gateway_quota_requests_total{quota="key:reader:`+keyDigest("reader-key")[:8]+`",result="refused"} 1
`), "gateway_quota_requests_total"))
}

// The reserve keeps the last calls of the org's allowance for essential
// routes and callers; the gauges show the usage climbing.
func TestReserveRefusesWhatIsNotEssential(t *testing.T) {
	t.Parallel()
	sb, dataURL := startOrg(t, 100)
	gw := newReplica(t, allowanceConfig(dataURL, "10%", 1000, ""), nil)
	spend(t, dataURL, 88)
	rec := gw.get("/v2/sobjects", "reader-key")
	require.Equal(t, http.StatusOK, rec.Code, "89 of 100 used: 11 left, more than the reserve")
	rec = gw.get("/v2/sobjects", "reader-key")
	require.Equal(t, http.StatusOK, rec.Code, "90 used, 10 left: the reserve, not under it")
	spend(t, dataURL, 1)
	rec = gw.get("/v2/sobjects", "reader-key")
	require.Equal(t, http.StatusOK, rec.Code, "the call that finds 9 left is the one that tells")
	used, _ := sb.Org().Usage()
	require.Equal(t, int64(92), used)

	rec = gw.get("/v2/sobjects", "reader-key")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "CALLOUT_FAILED", responseID(envelopeOf(t, rec)))
	assert.Contains(t, rec.Body.String(), "the org's API allowance is reserved for essential calls")
	assert.NotEmpty(t, rec.Header().Get("Retry-After"))
	used, _ = sb.Org().Usage()
	assert.Equal(t, int64(92), used, "refused before the org")

	assert.Equal(t, http.StatusOK, gw.get("/v2/sobjects/Account/describe", "reader-key").Code, "an essential route")
	assert.Equal(t, http.StatusOK, gw.get("/v2/sobjects", "ops-key").Code, "an essential caller")
	used, _ = sb.Org().Usage()
	assert.Equal(t, int64(94), used)
	assert.NoError(t, testutil.GatherAndCompare(gw.reg, strings.NewReader(`
# HELP gateway_upstream_allowance_limit The org's allowance of API calls per rolling 24 hours, as its answers report it.
# TYPE gateway_upstream_allowance_limit gauge
gateway_upstream_allowance_limit{upstream="data"} 100
# HELP gateway_upstream_allowance_reserve_engaged 1 while calls that are not essential are refused: fewer calls than the reserve remain, or the org answered REQUEST_LIMIT_EXCEEDED.
# TYPE gateway_upstream_allowance_reserve_engaged gauge
gateway_upstream_allowance_reserve_engaged{upstream="data"} 1
# HELP gateway_upstream_allowance_used API calls the org behind the upstream counted in its rolling 24 hours, as the freshest answer any replica saw reported (Sforce-Limit-Info).
# TYPE gateway_upstream_allowance_used gauge
gateway_upstream_allowance_used{upstream="data"} 94
`), "gateway_upstream_allowance_used", "gateway_upstream_allowance_limit", "gateway_upstream_allowance_reserve_engaged"))
}

// With allowance.poll the gauges show the org's usage from the start,
// before any request: the poll is one call of the limits resource.
func TestPollShowsTheUsageWhileIdle(t *testing.T) {
	t.Parallel()
	sb, dataURL := startOrg(t, 1000)
	spend(t, dataURL, 41)
	yaml := strings.Replace(allowanceConfig(dataURL, "", 10, ""), `allowance: {reserve: ""}`, `allowance: {poll: 10m}`, 1)
	gw := newReplica(t, yaml, nil)
	require.Eventually(t, func() bool {
		families, err := gw.reg.Gather()
		require.NoError(t, err)
		for _, f := range families {
			if f.GetName() == "gateway_upstream_allowance_used" {
				return f.GetMetric()[0].GetGauge().GetValue() == 42
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond)
	used, _ := sb.Org().Usage()
	assert.Equal(t, int64(42), used, "one poll, and no more while the usage is fresh")
}

// Three replicas sharing one Redis and one org: a key's daily quota holds
// across them, the reserve engages on every replica at its next request
// after any of them saw the org cross it, and a REQUEST_LIMIT_EXCEEDED on
// one trips them all.
func TestThreeReplicasShareQuotaAndAllowance(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	t.Run("a daily quota", func(t *testing.T) {
		t.Parallel()
		_, dataURL := startOrg(t, 1000)
		yaml := allowanceConfig(dataURL, "", 300, srv.URL())
		replicas := []*replica{newReplica(t, yaml, nil), newReplica(t, yaml, nil), newReplica(t, yaml, nil)}
		var allowed, refused atomic.Int64
		var wg sync.WaitGroup
		for g := range 9 {
			wg.Go(func() {
				for range 100 {
					switch replicas[g%3].get("/v2/settings/endpoints", "reader-key").Code {
					case http.StatusOK:
						allowed.Add(1)
					case http.StatusTooManyRequests:
						refused.Add(1)
					}
				}
			})
		}
		wg.Wait()
		assert.InDelta(t, 300, allowed.Load(), 3, "within 1%% of the quota over three replicas: %d", allowed.Load())
		assert.Equal(t, int64(900), allowed.Load()+refused.Load())
	})
	t.Run("the reserve", func(t *testing.T) {
		t.Parallel()
		sb, dataURL := startOrg(t, 100)
		yaml := strings.Replace(allowanceConfig(dataURL, "10", 1000, srv.URL()), `keyPrefix: "allowance-test:"`, `keyPrefix: "reserve:"`, 1)
		a, b, c := newReplica(t, yaml, nil), newReplica(t, yaml, nil), newReplica(t, yaml, nil)
		for _, r := range []*replica{a, b, c} {
			require.Equal(t, http.StatusOK, r.get("/v2/sobjects", "reader-key").Code)
		}
		spend(t, dataURL, 87) // 90 used: 10 left, the reserve
		require.Equal(t, http.StatusOK, a.get("/v2/sobjects", "reader-key").Code, "a sees 91: the org crossed the reserve")
		for name, r := range map[string]*replica{"b": b, "c": c, "a": a} {
			rec := r.get("/v2/sobjects", "reader-key")
			assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "replica %s's next request", name)
			assert.Contains(t, rec.Body.String(), "reserved for essential calls")
			assert.Equal(t, 1.0, metricOf(t, r.reg, "gateway_upstream_allowance_reserve_engaged").GetGauge().GetValue(), "replica %s", name)
		}
		used, _ := sb.Org().Usage()
		assert.Equal(t, int64(91), used, "none of them reached the org")
		assert.Equal(t, http.StatusOK, c.get("/v2/sobjects", "ops-key").Code, "essential callers go on")
	})
	t.Run("the org's limit", func(t *testing.T) {
		t.Parallel()
		_, dataURL := startOrg(t, 50)
		yaml := strings.Replace(allowanceConfig(dataURL, "", 1000, srv.URL()), `keyPrefix: "allowance-test:"`, `keyPrefix: "exceeded:"`, 1)
		a, b, c := newReplica(t, yaml, nil), newReplica(t, yaml, nil), newReplica(t, yaml, nil)
		spend(t, dataURL, 50) // another integration spent it all
		rec := a.get("/v2/sobjects", "reader-key")
		assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
		assert.Contains(t, rec.Body.String(), "the org's API request limit is exceeded", "a limit, not a credential failure")
		assert.NotEmpty(t, rec.Header().Get("Retry-After"))
		assert.Equal(t, 1.0, metricOf(t, a.reg, "gateway_upstream_allowance_exceeded_total").GetCounter().GetValue(), "the page's counter")
		for name, r := range map[string]*replica{"b": b, "c": c} {
			rec := r.get("/v2/sobjects", "reader-key")
			assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "replica %s", name)
			assert.Contains(t, rec.Body.String(), "reserved for essential calls", "replica %s refused it before the org", name)
			assert.Equal(t, 1.0, outcomes(t, r.reg)["reserved"], "replica %s sent nothing", name)
			assert.Zero(t, outcomes(t, r.reg)["limited"], "replica %s", name)
		}
		rec = b.get("/v2/sobjects", "ops-key")
		assert.Contains(t, rec.Body.String(), "the org's API request limit is exceeded", "an essential call is still tried")
	})
}

// outcomes are the upstream calls of reg by outcome.
func outcomes(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "gateway_upstream_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "outcome" {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// metricOf is the one series of family name in reg.
func metricOf(t *testing.T, reg *prometheus.Registry, name string) *dto.Metric {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == name {
			require.Len(t, f.GetMetric(), 1)
			return f.GetMetric()[0]
		}
	}
	t.Fatalf("no %s", name)
	return nil
}
