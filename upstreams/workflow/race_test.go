package workflow_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/workflow"
)

// lostRace is an engine on which a claim lost a race: the claim answers
// 500 as BaseExceptionHandlerAdvice answers the optimistic-locking
// exception by default ({"message":"Internal server error"}, the exception
// left out), and the task read afterwards shows its holder.
func lostRace(t *testing.T, holder string, reads *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodPost:
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `{"message":"Internal server error"}`)
		case http.MethodGet:
			reads.Add(1)
			assignee := "null"
			if holder != "" {
				assignee = `"` + holder + `"`
			}
			_, _ = io.WriteString(w, `{"id":"8","assignee":`+assignee+`,"taskDefinitionKey":"UnassignedLoan"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestClaimRace: a claim the engine fails with 500 is read again; the
// caller gets the 409 of a task another user now holds, success when the
// caller holds it, and the 500 only when nobody does. Through the shared
// client, an explained 500 leaves the breaker untouched.
func TestClaimRace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc       string
		holder     string
		wantStatus int // 0: success
		wantKind   upstreams.Kind
	}{
		{desc: "another user won", holder: "fozzie", wantStatus: http.StatusConflict, wantKind: upstreams.KindRejected},
		{desc: "the same user won", holder: "gonzo"},
		{desc: "nobody holds it: the engine failed", holder: "", wantStatus: http.StatusInternalServerError, wantKind: upstreams.KindFailed},
	}
	for _, tt := range tests {
		for _, shared := range []bool{false, true} {
			name := tt.desc + ", plain client"
			if shared {
				name = tt.desc + ", shared client"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var reads atomic.Int32
				srv := lostRace(t, tt.holder, &reads)
				var doer upstreams.Doer = newDoer()
				var client *upstreams.Client
				if shared {
					var err error
					client, err = upstreams.NewClient("workflow", upstreams.Settings{URL: srv.URL,
						Breaker: upstreams.BreakerSettings{ConsecutiveFailures: 1}}, nil)
					require.NoError(t, err)
					t.Cleanup(client.Close)
					doer = client
				}
				err := workflow.New(srv.URL, doer, workflow.Options{}).Claim(context.Background(), "8", "gonzo")
				assert.EqualValues(t, 1, reads.Load(), "the task is read once")
				if tt.wantStatus == 0 {
					require.NoError(t, err)
				} else {
					ue := upstreams.AsError(err)
					require.NotNil(t, ue, "%v", err)
					assert.Equal(t, tt.wantKind, ue.Kind)
					assert.Equal(t, tt.wantStatus, ue.Status)
				}
				if shared {
					want := "closed"
					if tt.holder == "" {
						want = "open" // an unexplained 500 is a failure like any other
					}
					assert.Equal(t, want, client.BreakerState())
				}
			})
		}
	}
}
