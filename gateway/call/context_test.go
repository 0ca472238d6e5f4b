package call

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/upstreams"
)

type outerKey struct{}

func TestWithAnswersForTheCallAndWhatUpstreamsReads(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), outerKey{}, "outer"))
	c := &Call{}
	ctx := With(parent, c)

	assert.Same(t, c, From(ctx))
	assert.Same(t, &c.Upstream, upstreams.TimingFrom(ctx))
	assert.Nil(t, upstreams.TraceHeadersFrom(ctx), "nothing captured yet")
	assert.Equal(t, upstreams.CallOptions{}, upstreams.CallOptionsFrom(ctx))
	assert.Equal(t, "outer", ctx.Value(outerKey{}), "other keys reach the parent")

	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}})
	c.Trace.Capture(trace.ContextWithSpanContext(context.Background(), sc))
	assert.Same(t, &c.Trace, upstreams.TraceHeadersFrom(ctx))

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
	nearer := upstreams.CallOptions{Timeout: time.Minute}
	tests := []struct {
		desc     string
		ctx      func(c *Call) context.Context
		sameReq  bool
		wantOpts upstreams.CallOptions
	}{
		{desc: "bound to the call: recorded on it",
			ctx: func(c *Call) context.Context { return With(context.Background(), c) }, sameReq: true, wantOpts: opts},
		{desc: "bound under other layers",
			ctx: func(c *Call) context.Context {
				return context.WithValue(With(context.Background(), c), outerKey{}, 1)
			}, sameReq: true, wantOpts: opts},
		{desc: "options outside the call: a layer of its own",
			ctx: func(c *Call) context.Context {
				return With(upstreams.WithCallOptions(context.Background(), nearer), c)
			}, wantOpts: opts},
		{desc: "nearer options: a layer of its own",
			ctx: func(c *Call) context.Context {
				return upstreams.WithCallOptions(With(context.Background(), c), nearer)
			}, wantOpts: opts},
		{desc: "another call's context: a layer of its own",
			ctx: func(*Call) context.Context { return With(context.Background(), &Call{}) }, wantOpts: opts},
		{desc: "no call: a layer of its own",
			ctx: func(*Call) context.Context { return context.Background() }, wantOpts: opts},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c := &Call{}
			r := httptest.NewRequest(http.MethodGet, "/v1/x", nil).WithContext(tt.ctx(c))
			got := WithCallOptions(r, c, opts)
			assert.Equal(t, tt.sameReq, got == r)
			assert.Equal(t, tt.wantOpts, upstreams.CallOptionsFrom(got.Context()))
			again := WithCallOptions(got, c, upstreams.CallOptions{NoRetry: true})
			assert.Equal(t, upstreams.CallOptions{NoRetry: true}, upstreams.CallOptionsFrom(again.Context()), "a second call replaces them")
		})
	}
}

func BenchmarkWith(b *testing.B) {
	parent := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c := &Call{}
		ctx := With(parent, c)
		if upstreams.TimingFrom(ctx) == nil || From(ctx) != c {
			b.Fatal("the call is not in its context")
		}
	}
}
