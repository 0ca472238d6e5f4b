package accounts_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
)

// TestBulkUpdateConcurrencyBound sends 30 updates with a bound of 3 to a
// backend that holds the first ones until 3 are in flight: never more than
// 3 are in flight, 3 are, and every item is answered.
func TestBulkUpdateConcurrencyBound(t *testing.T) {
	t.Parallel()
	const bound = 3
	var mu sync.Mutex
	inFlight, most, total := 0, 0, 0
	gate := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		total++
		most = max(most, inFlight)
		mu.Unlock()
		select {
		case <-gate: // held until the gateway has started as many as it would
		case <-r.Context().Done():
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		_, _ = w.Write([]byte(`{"status":"success"}`))
	}))
	t.Cleanup(backend.Close)
	gw := newGateway(t, backend.URL, accounts.Options{BulkConcurrency: bound})

	answered := make(chan handlertest.Answer, 1)
	go func() { answered <- do(t, gw, http.MethodPut, "/v2/accounts", manyItems(30), "") }()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return inFlight >= bound
	}, 10*time.Second, time.Millisecond, "the gateway sends %d updates at once", bound)
	close(gate)
	var a handlertest.Answer
	select {
	case a = <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("the bulk update was not answered")
	}
	require.Equal(t, http.StatusOK, a.Status, "answer: %s", a.Raw)
	var results []struct {
		ID         string `json:"id"`
		StatusCode int    `json:"statusCode"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &results))
	require.Len(t, results, 30)
	for i, r := range results {
		assert.Equal(t, http.StatusOK, r.StatusCode, "item %d", i)
		assert.Equal(t, manyItemID(i), r.ID, "results keep the input order")
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 30, total)
	assert.Equal(t, bound, most, "never more than the bound in flight")
}
