package call

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

type outerKey struct{}

func TestWithAnswersForTheCallAndItsUpstreamState(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), outerKey{}, "outer"))
	c := &Call{}
	ctx := With(parent, c)

	assert.Same(t, c, From(ctx))
	assert.Same(t, &c.Upstream, upstreams.CallStateFrom(ctx))
	assert.Equal(t, "outer", ctx.Value(outerKey{}), "other keys reach the parent")

	child, stop := context.WithCancel(ctx)
	defer stop()
	cancel()
	<-child.Done()
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "cancellation is the parent's")
}

func TestWithTwiceKeepsBothContexts(t *testing.T) {
	t.Parallel()
	c := &Call{}
	first := With(context.WithValue(context.Background(), outerKey{}, "first"), c)
	second := With(context.WithValue(first, outerKey{}, "second"), c)
	third := With(context.WithValue(context.Background(), outerKey{}, "third"), c)
	for desc, tt := range map[string]struct {
		ctx  context.Context
		want string
	}{"first": {first, "first"}, "second": {second, "second"}, "third": {third, "third"}} {
		assert.Same(t, c, From(tt.ctx), desc)
		assert.Equal(t, tt.want, tt.ctx.Value(outerKey{}), desc)
	}
}

func TestFromOutsideARequest(t *testing.T) {
	t.Parallel()
	c := From(context.Background())
	require.NotNil(t, c)
	assert.False(t, c.Start.IsZero())
}

func TestWithCallOptions(t *testing.T) {
	t.Parallel()
	opts := upstreams.CallOptions{Timeout: time.Second, NoRetry: true}
	tests := []struct {
		desc    string
		ctx     func(c *Call) context.Context
		sameReq bool
	}{
		{desc: "bound to the call: recorded on it",
			ctx: func(c *Call) context.Context { return With(context.Background(), c) }, sameReq: true},
		{desc: "bound under other layers",
			ctx: func(c *Call) context.Context {
				return context.WithValue(With(context.Background(), c), outerKey{}, 1)
			}, sameReq: true},
		{desc: "another state nearer: bound again",
			ctx: func(c *Call) context.Context {
				return upstreams.WithCallState(With(context.Background(), c), &upstreams.CallState{})
			}},
		{desc: "another call's context: bound",
			ctx: func(*Call) context.Context { return With(context.Background(), &Call{}) }},
		{desc: "no call: bound",
			ctx: func(*Call) context.Context { return context.Background() }},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c := &Call{}
			r := httptest.NewRequest(http.MethodGet, "/v1/x", nil).WithContext(tt.ctx(c))
			got := WithCallOptions(r, c, opts)
			assert.Equal(t, tt.sameReq, got == r)
			assert.Same(t, c, From(got.Context()))
			assert.Same(t, &c.Upstream, upstreams.CallStateFrom(got.Context()))
			assert.Equal(t, opts, c.Upstream.Options)
			again := WithCallOptions(got, c, upstreams.CallOptions{NoRetry: true})
			assert.Same(t, got, again, "bound now")
			assert.Equal(t, upstreams.CallOptions{NoRetry: true}, c.Upstream.Options, "a second call replaces them")
		})
	}
}

func BenchmarkWith(b *testing.B) {
	parent := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c := &Call{}
		ctx := With(parent, c)
		if upstreams.CallStateFrom(ctx) != &c.Upstream || From(ctx) != c {
			b.Fatal("the call is not in its context")
		}
	}
}

func TestLoggedMethod(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND"} {
		assert.Equal(t, "HTTP"+m, LoggedMethod(m))
	}
}
