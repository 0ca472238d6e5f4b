package h1server

import (
	"log/slog"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxServeAllocs is what the server allocates for a kept-alive GET whose
// handler allocates nothing (measured: 9; go test -bench ServeInProcess
// -memprofile shows which): one more is a context copy, a closure or a
// header map per request that slipped in.
const maxServeAllocs = 9

// TestServeAllocations pins the server's allocations per request, served
// in process from a streamConn (no network, no client). Not parallel:
// other tests' allocations would count.
func TestServeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	body := []byte(`{"result":"ok"}`)
	s := New(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write(body)
	}), Options{}, slog.New(slog.DiscardHandler))
	serve := func(n int) {
		c := newConn(s, &streamConn{req: benchGetRequest, n: n})
		require.True(t, s.track(c))
		c.serve()
	}
	serve(100) // pools warmed
	const n = 2000
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	serve(n)
	runtime.ReadMemStats(&after)
	// the connection's own allocations (its buffers, its goroutine's
	// state) spread over n requests round down to nothing
	perRequest := (after.Mallocs - before.Mallocs) / n
	assert.LessOrEqual(t, perRequest, uint64(maxServeAllocs), "allocations per request")
	t.Logf("%d allocations per request", perRequest)
}
