package app

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
)

// maxRequestAllocs is what GET /v2/accounts may allocate through the whole
// chain with everything the load harness runs on (BenchmarkGatewayAccountsV2
// measures 15): a request that allocates more has picked up a context copy,
// a closure, a header map or a formatted string it did not need.
// maxRequestBytes bounds their bytes likewise (3.0 KB measured).
const (
	maxRequestAllocs = 20
	maxRequestBytes  = 4 << 10
)

// TestGatewayRequestAllocations pins the allocations of one request through
// the real chain, against a backend and a client that allocate nothing
// (cannedBackend, discardWriter), so that the count is the gateway's own.
// Not parallel: testing.AllocsPerRun refuses to run beside parallel tests.
// The race detector's pools drop what they are given at random, so its
// counts are not the gateway's.
func TestGatewayRequestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	h, _ := benchGateway(t, sandboxaccounts.FixedList())
	req := benchRequest(t, "/v2/accounts")
	w := newDiscardWriter()
	serve := func() {
		w.reset()
		h.ServeHTTP(w, req)
	}
	for range 100 { // pools, caches and the header map grown
		serve()
	}
	require.NoError(t, w.check(`{"result":[{"id":`))
	allocs := testing.AllocsPerRun(1000, serve)
	require.NoError(t, w.check(`{"result":[{"id":`))
	assert.LessOrEqual(t, allocs, float64(maxRequestAllocs), "allocations per request")
	bytes := bytesPerRun(1000, serve)
	assert.LessOrEqual(t, bytes, uint64(maxRequestBytes), "bytes allocated per request")
	t.Logf("%.0f allocations and %d bytes per request", allocs, bytes)
}

// bytesPerRun is testing.AllocsPerRun for the bytes allocated: the average
// over runs calls of f, on one processor, after a first call.
func bytesPerRun(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}
