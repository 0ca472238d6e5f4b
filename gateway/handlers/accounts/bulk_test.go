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
)

// TestBulkUpdateConcurrencyBound sends 30 updates with a bound of 3 to a
// backend that holds each request a moment: never more than 3 are in
// flight, more than one is, and every item is answered.
func TestBulkUpdateConcurrencyBound(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	inFlight, most, total := 0, 0, 0
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		inFlight++
		total++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond) // lets the gateway start the others, if it would
		mu.Lock()
		inFlight--
		mu.Unlock()
		_, _ = w.Write([]byte(`{"status":"success"}`))
	}))
	t.Cleanup(backend.Close)
	gw := newGateway(t, backend.URL, accounts.Options{BulkConcurrency: 3})

	a := do(t, gw, http.MethodPut, "/v2/accounts", manyItems(30), "")
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
	assert.LessOrEqual(t, most, 3)
	assert.Greater(t, most, 1)
}
