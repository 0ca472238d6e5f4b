package allowance

import (
	"context"
	"testing"

	"github.com/restgate/gateway/upstreams"
)

// BenchmarkAdmit is the guard's decision before a call that is not
// essential, on this replica's own view (the memory store).
func BenchmarkAdmit(b *testing.B) {
	g := NewSet(nil, newRecorder(), discard(), nil).Guard("data", upstreams.AllowanceSettings{Reserve: "10%"})
	ctx := context.Background()
	g.Observe(ctx, upstreams.Usage{Used: 18, Limit: 15000})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := g.Admit(ctx, false); !ok {
			b.Fatal("refused")
		}
	}
}

// BenchmarkObserve is what an answer's usage costs: the header read, the
// view and the gauges updated.
func BenchmarkObserve(b *testing.B) {
	g := NewSet(nil, newRecorder(), discard(), nil).Guard("data", upstreams.AllowanceSettings{Reserve: "10%"})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, ok := upstreams.ParseLimitInfo("api-usage=18/15000")
		if !ok {
			b.Fatal("unread")
		}
		g.Observe(ctx, u)
	}
}
