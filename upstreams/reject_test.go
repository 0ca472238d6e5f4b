package upstreams

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRejectEndsTheCallAsInvalid(t *testing.T) {
	t.Parallel()
	invalid := &Error{Upstream: "test", Kind: KindInvalid, Message: "not JSON"}
	tests := []struct {
		desc    string
		status  int
		err     error
		closeFn func(*http.Response) error
		want    string
	}{
		{desc: "an invalid 2xx answer", status: 200, err: invalid, want: "invalid"},
		{desc: "wrapped", status: 200, err: errors.Join(errors.New("reading"), invalid), want: "invalid"},
		{desc: "a refusal the adapter read", status: 200, err: NewStatusError("test", 404, "", "gone"), want: "success"},
		{desc: "no error", status: 200, err: nil, want: "success"},
		{desc: "a 4xx answer stays rejected", status: 404, err: invalid, want: "rejected"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, answer(tt.status, "<html>"))
			s := testSettings(f.srv.URL)
			s.Breaker.ConsecutiveFailures = 1
			c, rec := newTestClient(t, s)
			req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, f.srv.URL, nil)
			require.NoError(t, err)
			resp, err := c.Do(req)
			require.NoError(t, err)
			_, err = io.ReadAll(resp.Body)
			require.NoError(t, err)
			outcomes, _ := rec.seen()
			assert.Empty(t, outcomes, "reading to the end does not end the call")

			assert.Equal(t, tt.err, Reject(resp, tt.err))
			require.NoError(t, resp.Body.Close(), "closing again is harmless")
			outcomes, changes := rec.seen()
			assert.Equal(t, []string{tt.want}, outcomes)
			if tt.want == "invalid" {
				assert.Equal(t, []string{"closed->open"}, changes, "a breaker failure")
			} else {
				assert.Empty(t, changes)
			}
		})
	}
}

func TestRejectAfterCloseChangesNothing(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(200, "{}"))
	c, rec := newTestClient(t, testSettings(f.srv.URL))
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, f.srv.URL, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	_ = Reject(resp, &Error{Kind: KindInvalid})
	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"success"}, outcomes)
}

func TestRejectOfAPlainResponseCloses(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(200, "{}"))
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(f.srv.URL)
	require.NoError(t, err)
	_ = Reject(resp, &Error{Kind: KindInvalid})
	_, err = resp.Body.Read(make([]byte, 1))
	assert.Error(t, err, "closed")
}
