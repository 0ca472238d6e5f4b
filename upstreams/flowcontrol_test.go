package upstreams

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOwnFlowControl: a client built WithOwnFlowControl leaves the
// backend's 429 and 503 out of the breaker's counts and gives a RetryAfter
// only when the backend sent one; without the option they open the breaker
// and a missing Retry-After is the breaker's open timeout.
func TestOwnFlowControl(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		desc      string
		handler   http.HandlerFunc
		own       bool
		wantRetry time.Duration
		wantState string
	}{
		{desc: "429 without Retry-After", handler: salesforceError(429, "", "slow down"), own: true, wantState: "closed"},
		{desc: "503 without Retry-After", handler: salesforceError(503, "", "overloaded"), own: true, wantState: "closed"},
		{desc: "429 with Retry-After", handler: salesforceError(429, "", "slow down", "Retry-After", "7"), own: true,
			wantRetry: 7 * time.Second, wantState: "closed"},
		{desc: "429 without the option", handler: salesforceError(429, "", "slow down"), wantRetry: time.Hour, wantState: "open"},
		{desc: "500 still counts", handler: salesforceError(500, "", "broken"), own: true, wantState: "open"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.handler)
			s := testSettings(f.srv.URL)
			s.Breaker.ConsecutiveFailures = 3
			var opts []Option
			if tt.own {
				opts = append(opts, WithOwnFlowControl())
			}
			c, err := NewClient("test", s, nil, opts...)
			require.NoError(t, err)
			t.Cleanup(c.Close)
			for range 3 {
				_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
				ue := AsError(err)
				require.NotNil(t, ue, "%v", err)
				if ue.Kind == KindLimited {
					assert.Equal(t, tt.wantRetry, ue.RetryAfter)
				}
			}
			assert.Equal(t, tt.wantState, c.BreakerState())
		})
	}
}
