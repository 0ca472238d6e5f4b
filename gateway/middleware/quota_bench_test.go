package middleware

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/quota"
	"github.com/restgate/gateway/gateway/routes"
)

type nopQuotaRecorder struct{}

func (nopQuotaRecorder) QuotaDecision(string, bool) {}

// BenchmarkQuota is the quota layer on one request of a limited caller:
// its policy resolved, a day and a month counted in memory, the two
// RateLimit fields written. Against a layer that finds no quota.
func BenchmarkQuota(b *testing.B) {
	auth := config.Auth{Quotas: config.Quotas{Users: map[string]config.Quota{"reader": {PerDay: 1e15, PerMonth: 1e15}}}}
	local := quota.NewMemory(100, nil)
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog(), Now: time.Now})
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	h := Quota(next, QuotaDeps{Policies: quota.NewPolicies(auth), Counter: quota.NewCounter(nil, local, nil),
		Route: func(*http.Request) *routes.Route { return nil }, Writer: w, Metrics: nopQuotaRecorder{}, Now: time.Now})
	for _, user := range []string{"reader", "unlimited"} {
		b.Run(user, func(b *testing.B) {
			c := &call.Call{Start: time.Now(), Identity: call.Identity{UserID: user}}
			req := httptest.NewRequest(http.MethodGet, "/v2/accounts", nil).WithContext(call.With(context.Background(), c))
			rw := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				clear(rw.Header())
				h.ServeHTTP(rw, req)
			}
		})
	}
}
