package upstreams

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An answer past its call's cap is refused: at once when it declares its
// length, at the first read past the cap otherwise; the route's cap beats
// the upstream's, and neither trips the breaker.
func TestAnswerCap(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("x"), 5000)
	declared := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}
	chunked := func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i < len(body); i += 1000 {
			_, _ = w.Write(body[i : i+1000])
			w.(http.Flusher).Flush()
		}
	}
	tests := []struct {
		desc      string
		handler   http.HandlerFunc
		upstream  int64
		route     int64
		wantErr   bool
		wantAtDo  bool // refused by Do, before the body
		transport string
	}{
		{desc: "declared over the upstream's cap", handler: declared, upstream: 4999, wantErr: true, wantAtDo: true},
		{desc: "declared over the route's cap", handler: declared, upstream: 1 << 20, route: 100, wantErr: true, wantAtDo: true},
		{desc: "declared within the route's cap", handler: declared, upstream: 100, route: 5000},
		{desc: "chunked past the cap", handler: chunked, upstream: 2500, wantErr: true},
		{desc: "chunked within the cap", handler: chunked, upstream: 5000},
		{desc: "declared over the cap, std transport", handler: declared, upstream: 100, wantErr: true, wantAtDo: true, transport: TransportStd},
		{desc: "chunked past the cap, std transport", handler: chunked, upstream: 2500, wantErr: true, transport: TransportStd},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.handler)
			s := testSettings(f.srv.URL)
			s.MaxAnswerBytes, s.Transport = tt.upstream, tt.transport
			s.Breaker.ConsecutiveFailures = 1
			c, rec := newTestClient(t, s)
			ctx := WithCallState(context.Background(), &CallState{Options: CallOptions{MaxAnswer: tt.route}})
			for range 2 { // twice: the breaker stays closed
				var p Answers
				resp, err := c.Do(mustRequest(t, ctx, http.MethodGet, f.srv.URL))
				if tt.wantAtDo {
					require.Error(t, err)
					assert.ErrorIs(t, err, ErrAnswerTooLarge)
					assert.Equal(t, KindInvalid, kindOf(err))
					assert.Equal(t, http.StatusBadGateway, StatusFor(err))
					continue
				}
				require.NoError(t, err)
				a, err := p.Read(resp, 1<<30)
				_ = resp.Body.Close()
				if !tt.wantErr {
					require.NoError(t, err)
					assert.Equal(t, body, a.JSON)
					a.Release()
					continue
				}
				require.ErrorIs(t, err, ErrAnswerTooLarge)
				assert.Equal(t, KindInvalid, kindOf(err))
			}
			assert.Equal(t, "closed", c.BreakerState(), "an answer too large is not a backend failure")
			assert.Equal(t, 0, c.limit.inFlightNow(), "the slot is free")
			outcomes, _ := rec.seen()
			want := "success"
			if tt.wantErr {
				want = "invalid"
			}
			assert.Equal(t, []string{want, want}, outcomes)
		})
	}
}

// No buffer of Answers.Read grows past the answer's limit, whatever the
// answer declared, and a buffer of the declared size is not regrown.
func TestAnswersReadBufferBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc           string
		size, declared int
		limit          int64
		wantCapAtMost  int
		wantCapAtLeast int
		wantLen        int
	}{
		{desc: "declared, small", size: 100, declared: 100, limit: 1 << 20, wantCapAtLeast: 101, wantCapAtMost: MinBuffer, wantLen: 100},
		{desc: "declared, past the classes", size: 5 << 20, declared: 5 << 20, limit: 8 << 20, wantCapAtLeast: 5<<20 + 1, wantCapAtMost: 5<<20 + 1, wantLen: 5 << 20},
		{desc: "declared, a class", size: 300 << 10, declared: 300 << 10, limit: 8 << 20, wantCapAtLeast: 300<<10 + 1, wantCapAtMost: 512 << 10, wantLen: 300 << 10},
		{desc: "unknown, limit between classes", size: 1 << 20, declared: -1, limit: 300 << 10, wantCapAtMost: 300<<10 + 1, wantLen: 300<<10 + 1},
		{desc: "declared more than the limit", size: 1 << 20, declared: 1 << 20, limit: 5000, wantCapAtMost: 5001, wantLen: 5001},
		{desc: "unknown, long", size: 3 << 20, declared: -1, limit: 8 << 20, wantCapAtMost: 4 << 20, wantLen: 3 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var p Answers
			a, err := p.Read(answerOf(bytes.NewReader(make([]byte, tt.size)), int64(tt.declared)), tt.limit)
			require.NoError(t, err)
			assert.Len(t, a.JSON, tt.wantLen)
			assert.LessOrEqual(t, cap(*a.buf), tt.wantCapAtMost)
			assert.GreaterOrEqual(t, cap(*a.buf), tt.wantCapAtLeast)
			a.Release()
		})
	}
}
