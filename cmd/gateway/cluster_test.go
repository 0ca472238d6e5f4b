package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
)

// replicaConfig is one replica of a deployment sharing Redis: two API keys
// (users a and b), a per-user limit, and the redis store with a timeout a
// loaded test machine cannot reach (a fallback would let more through).
const replicaConfig = `
server:
  listen: %s
  adminListen: %s
  tls: {mode: off}
  dataDir: %s
versions: [v1, v2]
auth:
  mode: apikey
  apiKeys:
    - {sha256: %s, userId: user-a}
    - {sha256: %s, userId: user-b}
  rateLimit: {requestsPerSecond: %g, burst: %d}
log: {duplicateWindow: 1m, level: warn}
cluster:
  store: redis
  redis: {url: "%s", timeout: 2s}
models:
  Account: {fields: [Id, Name]}
upstreams:
  accounts: {url: %s, timeout: 5s, retry: {attempts: 1}}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: accounts, model: Account}
`

// startReplicas runs n gateway processes, all on one Redis and one backend.
func startReplicas(t *testing.T, n int, redisURL, backend string, rps float64, burst int) []*gatewayProcess {
	t.Helper()
	digest := func(key string) string { s := sha256.Sum256([]byte(key)); return hex.EncodeToString(s[:]) }
	var rs []*gatewayProcess
	for range n {
		dir := t.TempDir()
		rs = append(rs, startProcess(t, dir, func(api, admin string) string {
			return fmt.Sprintf(replicaConfig, api, admin, dir, digest("key-a"), digest("key-b"), rps, burst, redisURL, backend)
		}))
	}
	return rs
}

func accountsBackend(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"Id":"001000000000001AAA","Name":"Acme"}]`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(client *http.Client, url, key string) (int, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-API-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// metricSum adds every sample of a metric family on the replicas' /metrics.
func metricSum(t *testing.T, rs []*gatewayProcess, name string) float64 {
	t.Helper()
	var sum float64
	for _, r := range rs {
		v, _ := r.metric(t, name)
		sum += v
	}
	return sum
}

// Three gateway processes on one Redis: a user hammering all three gets the
// configured rate, not three times it, and a request repeated on another
// replica is one duplicate.
func TestReplicasShareLimitsAndDuplicates(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three gateway processes and a redis-server")
	}
	redis := redistest.New(t)
	backend := accountsBackend(t)
	const (
		rps   = 40.0
		burst = 20 // absorbs a stall of the loaded test machine of up to burst/rps: no token is lost
		run   = 6 * time.Second
	)
	rs := startReplicas(t, 3, redis.URL(), backend.URL, rps, burst)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections)

	var allowed, limited, other atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(run)
	for w := range 6 {
		wg.Go(func() {
			for i := w; time.Now().Before(deadline); i++ {
				code, err := get(client, "http://"+rs[i%len(rs)].api+"/v2/accounts", "key-a")
				switch {
				case err == nil && code == http.StatusOK:
					allowed.Add(1)
				case err == nil && code == http.StatusTooManyRequests:
					limited.Add(1)
				default:
					other.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	want := burst + rps*elapsed.Seconds()
	got := float64(allowed.Load())
	t.Logf("user-a over %s on 3 replicas: %d allowed (configured rate: %.0f), %d limited", elapsed.Round(time.Millisecond),
		allowed.Load(), want, limited.Load())
	assert.Zero(t, other.Load(), "only 200 and 429")
	assert.Greater(t, limited.Load(), 2*allowed.Load(), "the load was well above the limit")
	assert.InEpsilon(t, want, got, 0.05, "within 5%% of burst + rate x time: %.0f allowed, want %.0f", got, want)
	assert.Zero(t, metricSum(t, rs, "gateway_cluster_store_fallbacks_total"), "every decision was taken in Redis")

	// user-a's identical requests were duplicates; what follows is counted
	// from here, once user-a's last ones are observed
	var base float64
	require.Eventually(t, func() bool {
		before := base
		base = metricSum(t, rs, "gateway_duplicate_requests_total")
		return base == before
	}, 10*time.Second, 200*time.Millisecond)

	// user-b has an allowance of their own
	for _, r := range rs {
		code, err := get(client, "http://"+r.api+"/v2/accounts?limit=1&offset=0", "key-b")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, code)
	}
	// the first of user-b's three requests above was new, the two on the
	// other replicas repeats of it; another page is another request
	code, err := get(client, "http://"+rs[2].api+"/v2/accounts?limit=1&offset=1", "key-b")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code)
	// a duplicate is counted after its answer is sent: wait for both
	require.Eventually(t, func() bool {
		return metricSum(t, rs, "gateway_duplicate_requests_total")-base >= 2
	}, 10*time.Second, 10*time.Millisecond, "a request repeated on other replicas is a duplicate there")
	assert.Equal(t, 2.0, metricSum(t, rs, "gateway_duplicate_requests_total")-base, "once per repeat, the other page not")
}
