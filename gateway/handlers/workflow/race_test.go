package workflow_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/upstreams"
	sandboxworkflow "github.com/restgate/gateway/upstreams/sandbox/workflow"
)

// TestClaimRace races many claims of one unassigned task through the real
// router and the shared upstream client to the reference engine, every
// claim held between its read and its write until all have read the task,
// as on a busy engine: the losers' writes fail on the engine's optimistic
// lock with its bare 500. The gateway reads the task again and answers
// them 409; exactly one claim wins, no client sees a 5xx, and the breaker
// (tripping after three failures) counted none of them.
func TestClaimRace(t *testing.T) {
	t.Parallel()
	const claimers = 12
	var (
		mu      sync.Mutex
		waiting int
		all     = make(chan struct{})
	)
	base, _ := handlertest.Sandbox(t, t.TempDir(), func(db *sql.DB) (http.Handler, error) {
		return sandboxworkflow.NewWithOptions(db, sandboxworkflow.Options{AfterClaimRead: func(string) {
			mu.Lock()
			waiting++
			if waiting == claimers {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-time.After(60 * time.Second): // a bound for a broken test, never reached when all arrive
			}
		}})
	})
	client, err := upstreams.NewClient("workflow", upstreams.Settings{URL: base,
		Auth:    upstreams.AuthSettings{Username: engineUser, Password: enginePassword},
		Breaker: upstreams.BreakerSettings{ConsecutiveFailures: 3, OpenTimeout: time.Hour}}, nil)
	require.NoError(t, err)
	t.Cleanup(client.Close)
	gw := newGatewayOn(t, base, client)
	task := startLoan(t, gw)

	statuses := make([]int, claimers)
	codes := make([]string, claimers)
	var wg sync.WaitGroup
	for i := range claimers {
		wg.Go(func() {
			a := do(t, gw, request{method: http.MethodPost, target: "/v2/tasks/" + task + "/claims", user: fmt.Sprintf("officer%02d", i)})
			statuses[i], codes[i] = a.Status, a.ResponseCode.ID
		})
	}
	wg.Wait()
	won := 0
	for i, s := range statuses {
		switch s {
		case http.StatusOK:
			won++
		case http.StatusConflict:
			assert.Equal(t, "SOBJECT_OPERATION_FAILED", codes[i])
		default:
			t.Errorf("claim %d answered %d %s", i, s, codes[i])
		}
	}
	assert.Equal(t, 1, won, "exactly one claim wins")
	assert.Equal(t, "closed", client.BreakerState(), "a lost race is no engine failure")

	a := do(t, gw, request{method: http.MethodGet, target: "/v2/tasks/" + task})
	require.Equal(t, http.StatusOK, a.Status)
	var got struct{ Assignee string }
	require.NoError(t, json.Unmarshal(a.Result, &got))
	assert.Regexp(t, `^officer\d\d$`, got.Assignee)
}
