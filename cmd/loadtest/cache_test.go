package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -cache: 100 clients' describe over three replicas sharing a redis-server;
// hits, misses and the uncached route side by side, and the backend's
// calls of the hit key: never more than one within a ttl.
func TestSmokeRunCache(t *testing.T) {
	// a cache Redis timeout a loaded CI machine keeps within, so that the
	// replicas never fall back to calling the backend alone
	rep := smokeRun(t, "starts three gateways, a backend and redis-server, and builds the gateway", true,
		"-smoke", "-json", "-cache", "-cache-ttl", "500ms", "-describe-latency", "20ms", "-cache-redis-timeout", "1s")
	require.NotNil(t, rep.Cache)
	require.Len(t, rep.Targets, 3)
	for i, name := range []string{"hit", "miss", "uncached"} {
		tr, ct := rep.Targets[i], rep.Cache.Targets[i]
		assert.Equal(t, name, tr.Name)
		assert.Positive(t, tr.Requests, name)
		assert.Zero(t, tr.Errors, name)
		assert.Positive(t, tr.CPUMicrosPerR, "%s: the replicas' CPU is read", name)
		assert.Positive(t, ct.RedisCPUMicrosPerR, "%s: redis-server's CPU is read", name)
		if name == "hit" {
			assert.Less(t, ct.BackendCallsPerR, 0.01, "hits hardly reach the backend")
		} else {
			assert.InDelta(t, 1, ct.BackendCallsPerR, 0.001, "%s: one backend call per request", name)
		}
	}
	assert.Positive(t, rep.Cache.HitVsMiss.CPUPerRequest)
	assert.Positive(t, rep.Cache.HitVsUncached.CPUPerRequest)
	k := rep.Cache.HitKey
	assert.Positive(t, k.Calls)
	assert.Equal(t, 1, k.MaxInWindow, "one backend call per key per ttl across the three replicas")
	assert.Greater(t, rep.Cache.AnswerBytes, 100000)
	assert.Zero(t, rep.Cache.Metrics.StoreErrors)
}

func TestCacheFlagsRefuseOtherScenarios(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-cache", "-tls"}, {"-cache", "-records", "20"}, {"-cache", "-cluster"},
		{"-cache", "-cache-replicas", "0"}, {"-cache", "-cache-replicas", "9"}, {"-cache", "-cache-clients", "2"},
		{"-cache", "-cache-ttl", "0s"}, {"-cache", "-describe-fields", "0"}, {"-cache", "-redis-timeout", "0s"}, {"-cache", "-cache-redis-timeout", "0s"},
	} {
		var out, log bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, &out, &log), "%v", args)
	}
}

func TestWindows(t *testing.T) {
	t.Parallel()
	s := int64(time.Second)
	tests := []struct {
		desc  string
		calls []int64
		end   int64
		want  keyCalls
	}{
		{desc: "none", end: 10 * s, want: keyCalls{}},
		{desc: "one", calls: []int64{s}, end: 5 * s, want: keyCalls{Calls: 1, Seconds: 4, Windows: 2, PerWindow: 0.5, MaxInWindow: 1}},
		{desc: "one per ttl", calls: []int64{0, 2*s + 1, 4*s + 2}, end: 6 * s,
			want: keyCalls{Calls: 3, Seconds: 6, Windows: 3, PerWindow: 1, MaxInWindow: 1, MinGapMillis: 2000.000001}},
		{desc: "two within one ttl", calls: []int64{0, s / 2, 3 * s}, end: 4 * s,
			want: keyCalls{Calls: 3, Seconds: 4, Windows: 2, PerWindow: 1.5, MaxInWindow: 2, MinGapMillis: 500}},
		{desc: "a call exactly one ttl later is in the next window", calls: []int64{0, 2 * s}, end: 2 * s,
			want: keyCalls{Calls: 2, Seconds: 2, Windows: 1, PerWindow: 2, MaxInWindow: 1, MinGapMillis: 2000}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := windows(tt.calls, tt.end, 2*time.Second)
			assert.InDelta(t, tt.want.MinGapMillis, got.MinGapMillis, 1e-6)
			got.MinGapMillis = tt.want.MinGapMillis
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Equal(t, 3, callsWithin([]int64{1, 5, 9, 12}, [][2]int64{{0, 5}, {10, 11}, {12, 20}}))
}

// The describe backend answers as the org does: the describe, then 304 to
// its Last-Modified, every call of each type recorded.
func TestDescribeBackend(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(newDescribeBackend(0, 10))
	defer srv.Close()
	resp, err := http.Get(srv.URL + describePrefix + "Account/describe")
	require.NoError(t, err)
	var d struct {
		Name   string           `json:"name"`
		Fields []map[string]any `json:"fields"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&d))
	_ = resp.Body.Close()
	assert.Equal(t, "Account", d.Name)
	assert.Len(t, d.Fields, 10)
	assert.Contains(t, resp.Header.Get("Cache-Control"), "no-store", "the org's marks")
	lm := resp.Header.Get("Last-Modified")
	require.NotEmpty(t, lm)

	req, err := http.NewRequest(http.MethodGet, srv.URL+describePrefix+"Account/describe", nil)
	require.NoError(t, err)
	req.Header.Set("If-Modified-Since", lm)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)

	resp, err = http.Get(srv.URL + describePrefix + "Account")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	calls, err := backendCalls(srv.URL)
	require.NoError(t, err)
	assert.Len(t, calls["Account"], 2, "the 304 is a call too")
}
