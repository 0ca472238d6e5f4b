package quota

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
)

const readerKey = "f35cbe46658bb1f2d604d76215f8ae39debc106fa9826efb923253ec27ff5553"

func testAuth() config.Auth {
	return config.Auth{
		APIKeys: []config.APIKey{
			{SHA256: readerKey, UserID: "reader", Quota: &config.Quota{PerDay: 100}},
			{SHA256: strings.Repeat("ab", 32), UserID: "batch", Essential: true},
		},
		Quotas: config.Quotas{
			Users: map[string]config.Quota{"alice": {PerMonth: 5000}},
			Roles: []config.RoleQuota{{Role: "partner", PerDay: 500, Upstreams: map[string]config.QuotaLimits{"data": {PerDay: 50}}},
				{Role: "trial", PerDay: 10}},
			Default: &config.Quota{PerDay: 1000},
		},
		Essential: config.Essential{Users: []string{"ops"}, Roles: []string{"operator"}},
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	p := NewPolicies(testAuth())
	tests := []struct {
		desc      string
		id        call.Identity
		policy    string
		consumer  string
		essential bool
	}{
		{desc: "a key's own quota, counted per key", id: call.Identity{UserID: "reader", Key: "f35cbe46658bb1f2"},
			policy: "key:reader:f35cbe46", consumer: "key:f35cbe46658bb1f2"},
		{desc: "an essential key without a quota gets the default", id: call.Identity{UserID: "batch", Key: "abababababababab"},
			policy: "default", consumer: "user:batch", essential: true},
		{desc: "a user's quota before its roles", id: call.Identity{UserID: "alice", Roles: []string{"partner"}},
			policy: "user:alice", consumer: "user:alice"},
		{desc: "the first role listed", id: call.Identity{UserID: "bob", Roles: []string{"trial", "partner"}},
			policy: "role:partner", consumer: "user:bob"},
		{desc: "the default", id: call.Identity{UserID: "carol"}, policy: "default", consumer: "user:carol"},
		{desc: "an essential user", id: call.Identity{UserID: "ops"}, policy: "default", consumer: "user:ops", essential: true},
		{desc: "an essential role", id: call.Identity{UserID: "dave", Roles: []string{"operator"}}, policy: "default",
			consumer: "user:dave", essential: true},
		{desc: "a long subject is named by its digest", id: call.Identity{UserID: strings.Repeat("x", 200)}, policy: "default",
			consumer: "user#4b5c3f0c9c64d2e5c4fd8f2a0f5f0ddd"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			pol, consumer, essential := p.Resolve(tc.id)
			require.NotNil(t, pol)
			assert.Equal(t, tc.policy, pol.Name)
			if strings.HasPrefix(tc.consumer, "user#") {
				assert.Len(t, consumer, len("user#")+32)
			} else {
				assert.Equal(t, tc.consumer, consumer)
			}
			assert.Equal(t, tc.essential, essential)
		})
	}
	none := NewPolicies(config.Auth{Essential: config.Essential{Roles: []string{"operator"}}})
	pol, _, essential := none.Resolve(call.Identity{UserID: "x", Roles: []string{"operator"}})
	assert.Nil(t, pol, "no quota: not limited")
	assert.True(t, essential)
}

func TestCountsFollowTheCalendar(t *testing.T) {
	t.Parallel()
	p := NewPolicies(testAuth())
	partner, consumer, _ := p.Resolve(call.Identity{UserID: "bob", Roles: []string{"partner"}})
	now := time.Date(2026, 2, 27, 23, 30, 0, 0, time.FixedZone("CET", 3600)) // 22:30 UTC
	counts := partner.Counts(nil, consumer, "data", now)
	require.Len(t, counts, 2)
	assert.Equal(t, Count{Name: "day", Quota: 500, Window: 86400, Reset: time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC),
		Key: "{user:bob}:day:20260227"}, counts[0])
	assert.Equal(t, Count{Name: "data-day", Quota: 50, Window: 86400, Reset: time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC),
		Key: "{user:bob}:data-day:20260227"}, counts[1])
	assert.Len(t, partner.Counts(nil, consumer, "accounts", now), 1, "another upstream: the overall window only")
	assert.True(t, partner.PerUpstream())

	alice, consumer, _ := p.Resolve(call.Identity{UserID: "alice"})
	counts = alice.Counts(nil, consumer, "", now)
	require.Len(t, counts, 1)
	assert.Equal(t, Count{Name: "month", Quota: 5000, Window: 28 * 86400, Reset: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Key: "{user:alice}:month:202602"}, counts[0], "February's window is 28 days")
}

func TestMemoryCountsAtomically(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := NewMemory(10, clock)
	p := newPolicy("role:partner", config.Quota{PerDay: 3, Upstreams: map[string]config.QuotaLimits{"data": {PerDay: 1}}})
	ctx := context.Background()
	take := func(upstream string) (int, []Count) {
		req := Request{Consumer: "user:bob", Policy: p.Name, Counts: p.Counts(nil, "user:bob", upstream, now)}
		spent, err := m.Take(ctx, &req)
		require.NoError(t, err)
		return spent, req.Counts
	}
	spent, counts := take("data")
	assert.Equal(t, -1, spent)
	assert.Equal(t, []int64{1, 1}, []int64{counts[0].Used, counts[1].Used})
	spent, counts = take("data")
	assert.Equal(t, 1, spent, "the data window is used up")
	assert.Equal(t, []int64{1, 1}, []int64{counts[0].Used, counts[1].Used}, "and nothing was counted")
	spent, _ = take("accounts")
	assert.Equal(t, -1, spent)
	spent, counts = take("")
	assert.Equal(t, -1, spent)
	assert.Equal(t, int64(3), counts[0].Used)
	spent, counts = take("")
	assert.Equal(t, 0, spent)
	assert.Equal(t, int64(0), counts[0].Remaining())

	now = now.Add(14 * time.Hour) // the next UTC day
	spent, counts = take("data")
	assert.Equal(t, -1, spent, "a new day starts at 0")
	assert.Equal(t, int64(1), counts[0].Used)
	listed := m.Consumers(0)
	require.Len(t, listed, 1)
	assert.Len(t, listed[0].Counts, 2, "the ended day's windows are dropped")
}

func TestMemoryIsBoundedAndConcurrent(t *testing.T) {
	t.Parallel()
	m := NewMemory(50, nil)
	p := newPolicy("default", config.Quota{PerDay: 1000000})
	now := time.Now()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				c := "user:" + strconv.Itoa((g*1000+i)%100)
				req := Request{Consumer: c, Policy: p.Name, Counts: p.Counts(nil, c, "", now)}
				_, _ = m.Take(context.Background(), &req)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 50, m.Len())
}

func TestUsagesAndSnapshot(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := NewMemory(10, clock)
	c := NewCounter(nil, m, clock)
	p := newPolicy("role:partner", config.Quota{PerDay: 10, PerMonth: 100})
	for i, n := range map[string]int{"user:bob": 3, "user:eve": 7} {
		for range n {
			req := Request{Consumer: i, Policy: p.Name, Counts: p.Counts(nil, i, "", now)}
			_, err := c.Store.Take(context.Background(), &req)
			require.NoError(t, err)
		}
	}
	assert.Equal(t, []PolicyUse{{Policy: "role:partner", Window: "day", Used: 7, Quota: 10},
		{Policy: "role:partner", Window: "month", Used: 7, Quota: 100}}, c.Snapshot(), "the policy's busiest consumer")

	rr := httptest.NewRecorder()
	c.Handler().ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "/admin/quotas?consumer=bob", nil))
	var got struct {
		Consumers    []Usage `json:"consumers"`
		Kept         int     `json:"kept"`
		MaxConsumers int     `json:"maxConsumers"`
	}
	require.NoError(t, json.Unmarshal(rr.Body.Bytes(), &got))
	assert.Equal(t, 2, got.Kept)
	assert.Equal(t, 10, got.MaxConsumers)
	assert.Equal(t, []Usage{{Consumer: "user:bob", Quota: "role:partner", Windows: []WindowUsage{
		{Name: "day", Quota: 10, Used: 3, Remaining: 7, ResetIn: 7200},
		{Name: "month", Quota: 100, Used: 3, Remaining: 97, ResetIn: 5*86400 + 7200},
	}}}, got.Consumers)

	rr = httptest.NewRecorder()
	c.Handler().ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "/admin/quotas?limit=none", nil))
	assert.Equal(t, http.StatusBadRequest, rr.Code)
}
