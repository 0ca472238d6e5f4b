package upstreams

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnswerHoldsItsCallsOutcome: an answer read whole by Answers.Read
// from a Client holds its call's outcome until Release, so that its user
// can still reject it; the call's time is measured when its body is closed,
// as for any call, and a 2xx answer rejected by its user is an invalid
// call and a breaker failure.
func TestAnswerHoldsItsCallsOutcome(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		desc    string
		reject  error
		outcome string
		state   string
	}{
		{desc: "released", outcome: "success", state: "closed"},
		{desc: "rejected for invalid JSON", reject: errors.New("invalid character '}'"), outcome: "invalid", state: "open"},
		{desc: "rejected by the adapter's verdict", reject: &Error{Upstream: "test", Kind: KindInvalid, Message: "too many records"},
			outcome: "invalid", state: "open"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, answer(http.StatusOK, `[{"Id":"1"}]`))
			s := testSettings(f.srv.URL)
			s.Breaker.ConsecutiveFailures = 1
			c, rec := newTestClient(t, s)
			state := &CallState{}
			req, err := http.NewRequestWithContext(WithCallState(context.Background(), state), http.MethodGet, f.srv.URL, nil)
			require.NoError(t, err)
			resp, err := c.Do(req)
			require.NoError(t, err)
			var p Answers
			a, err := p.Read(resp, 1<<20)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())

			took := state.Timing.Total()
			assert.Positive(t, took, "the call's time is taken when its body is closed")
			outcomes, _ := rec.seen()
			assert.Empty(t, outcomes, "the outcome waits for the answer")
			assert.Equal(t, "closed", c.BreakerState())

			if tt.reject != nil {
				a.Reject(tt.reject)
			}
			a.Release()
			outcomes, _ = rec.seen()
			assert.Equal(t, []string{tt.outcome}, outcomes)
			assert.Equal(t, tt.state, c.BreakerState())
			assert.Equal(t, took, state.Timing.Total(), "the release adds no upstream time")
		})
	}
}

// TestAnswerReleasedBeforeTheBodyIsClosed: an adapter that releases the
// answer and then rejects the response (upstreams.Reject) still ends the
// call as invalid: the outcome is reported at the later of the two.
func TestAnswerReleasedBeforeTheBodyIsClosed(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusOK, `"maintenance"`))
	c, rec := newTestClient(t, testSettings(f.srv.URL))
	req, err := http.NewRequest(http.MethodGet, f.srv.URL, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	var p Answers
	a, err := p.Read(resp, 1<<20)
	require.NoError(t, err)
	a.Release()
	outcomes, _ := rec.seen()
	assert.Empty(t, outcomes)
	_ = Reject(resp, &Error{Upstream: "test", Kind: KindInvalid, Message: "not an array"})
	outcomes, _ = rec.seen()
	assert.Equal(t, []string{"invalid"}, outcomes)
}
