package upstreams

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFailureCheck: a 5xx answer the caller explains is neither counted by
// the breaker nor retried, and still comes back as the call's *Error; one
// it does not explain counts as before.
func TestFailureCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc      string
		explained bool
		wantState string
		wantHits  int64
	}{
		{desc: "explained failures leave the breaker closed", explained: true, wantState: "closed", wantHits: 3},
		{desc: "unexplained failures open it", explained: false, wantState: "open", wantHits: 2},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, answer(http.StatusInternalServerError, `{"message":"Internal server error"}`))
			s := testSettings(f.srv.URL)
			s.Breaker = BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Hour}
			s.Retry = RetrySettings{Attempts: 3, Backoff: time.Millisecond, Budget: 1}
			c, _ := newTestClient(t, s)
			var seen []*Error
			ctx := WithFailureCheck(context.Background(), func(e *Error) bool {
				seen = append(seen, e)
				return tt.explained
			})
			for range 3 {
				_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
				ue := AsError(err)
				require.NotNil(t, ue, "%v", err)
				assert.Contains(t, []Kind{KindFailed, KindOpen}, ue.Kind)
			}
			assert.Equal(t, tt.wantState, c.BreakerState())
			assert.Equal(t, tt.wantHits, f.hits.Load(), "an explained failure is not retried; the breaker stops the rest")
			require.NotEmpty(t, seen)
			assert.Equal(t, http.StatusInternalServerError, seen[0].Status)
			assert.Contains(t, seen[0].Message, "Internal server error")
		})
	}
}

// TestFailureCheckSeesOnlyServerErrors: a 4xx is an answer, not a
// failure, and never reaches the check.
func TestFailureCheckSeesOnlyServerErrors(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusConflict, `{"message":"Conflict"}`))
	c, _ := newTestClient(t, testSettings(f.srv.URL))
	ctx := WithFailureCheck(context.Background(), func(*Error) bool {
		t.Error("the check ran for a 409")
		return true
	})
	status, _, err := fetch(ctx, c, http.MethodPost, f.srv.URL, "{}")
	require.NoError(t, err)
	assert.Equal(t, http.StatusConflict, status)
}
