package upstreams

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseLimitInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, value string
		want        Usage
		ok          bool
	}{
		// The REST API Developer Guide's Limit Info Header page and its examples.
		{desc: "the guide's example", value: "api-usage=18/5000", want: Usage{18, 5000}, ok: true},
		{desc: "with the connected app's quota", value: "api-usage=25/5000; per-app-api-usage=17/250(appName=sample-connected-app)",
			want: Usage{25, 5000}, ok: true},
		{desc: "past the limit, with bursts", value: "api-usage=110018/100000; api-bursts=1/750", want: Usage{110018, 100000}, ok: true},
		{desc: "member order and spaces", value: " per-app-api-usage=17/250(appName=x) ;  API-Usage = 7/15000 ", want: Usage{7, 15000}, ok: true},
		{desc: "nothing used", value: "api-usage=0/15000", want: Usage{0, 15000}, ok: true},
		{desc: "empty", value: ""},
		{desc: "no api-usage", value: "per-app-api-usage=17/250(appName=x)"},
		{desc: "no slash", value: "api-usage=18"},
		{desc: "zero limit", value: "api-usage=0/0"},
		{desc: "negative", value: "api-usage=-1/100"},
		{desc: "not a number", value: "api-usage=a/100"},
		{desc: "fraction", value: "api-usage=1.5/100"},
		{desc: "absurd", value: "api-usage=1/99999999999"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			got, ok := ParseLimitInfo(tc.value)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzParseLimitInfo(f *testing.F) {
	for _, seed := range []string{"api-usage=18/5000", "api-usage=25/5000; per-app-api-usage=17/250(appName=a)",
		"api-usage=110018/100000; api-bursts=1/750", "api-usage=/", "api-usage=1/", ";;=;", "api-usage=1/2/3"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		u, ok := ParseLimitInfo(v)
		if !ok {
			assert.Equal(t, Usage{}, u)
			return
		}
		assert.Positive(t, u.Limit)
		assert.GreaterOrEqual(t, u.Used, int64(0))
		assert.LessOrEqual(t, u.Used, int64(maxUsage))
		assert.LessOrEqual(t, u.Limit, int64(maxUsage))
		// What was read is what the header says: written back, it reads the same.
		again, ok := ParseLimitInfo(fmt.Sprintf("api-usage=%d/%d", u.Used, u.Limit))
		assert.True(t, ok)
		assert.Equal(t, u, again)
		var seen UsageSeen
		seen.store(u)
		back, ok := seen.Load()
		assert.True(t, ok)
		assert.Equal(t, u, back, "the call log's packed form keeps both figures")
	})
}

func TestAllowanceSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reserve string
		poll    time.Duration
		want    int64 // of a limit of 15000
		problem string
	}{
		{reserve: "", want: 0},
		{reserve: "10%", want: 1500},
		{reserve: "2.5%", want: 375},
		{reserve: "0.01%", want: 2}, // rounded up: a reserve never rounds to nothing
		{reserve: "1500", want: 1500},
		{reserve: "0", want: 0},
		{reserve: "100%", problem: "upstreams.data.allowance.reserve: must be a percentage from 0% to below 100%, not \"100%\""},
		{reserve: "-5%", problem: "must be a percentage from 0% to below 100%"},
		{reserve: "ten", problem: `must be a percentage of the org's limit below 100% ("10%") or a number of calls ("1500"), not "ten"`},
		{reserve: "-1", problem: "or a number of calls"},
		{reserve: "1.5", problem: "or a number of calls"},
		{poll: 30 * time.Second, problem: "upstreams.data.allowance.poll: must be 0 (off) or at least 1m0s"},
		{poll: 5 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.reserve+"/"+tc.poll.String(), func(t *testing.T) {
			t.Parallel()
			a := AllowanceSettings{Reserve: tc.reserve, Poll: tc.poll}
			errs := a.validate("upstreams.data.allowance")
			if tc.problem == "" {
				assert.Empty(t, errs)
				assert.Equal(t, tc.want, a.ReserveOf(15000))
				return
			}
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0].Error(), tc.problem)
		})
	}
}

// fakeAllowance records what the client tells it and refuses what refuse
// says.
type fakeAllowance struct {
	mu       sync.Mutex
	refuse   bool
	asked    []bool
	seen     []Usage
	exceeded int
}

func (f *fakeAllowance) Admit(_ context.Context, essential bool) (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, essential)
	return 90 * time.Second, !f.refuse || essential
}

func (f *fakeAllowance) Observe(_ context.Context, u Usage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, u)
}

func (f *fakeAllowance) Exceeded(context.Context) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exceeded++
	return 17 * time.Minute
}

// orgAnswer answers as a Salesforce org does: the usage header on every
// answer, and from limit on 403 REQUEST_LIMIT_EXCEEDED with the error array
// (REST API Developer Guide, Status Codes and Error Responses).
func orgAnswer(limit int) http.HandlerFunc {
	var mu sync.Mutex
	used := 0
	return func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		used++
		n := used
		mu.Unlock()
		w.Header().Set(LimitInfoHeader, "api-usage="+strconv.Itoa(n)+"/"+strconv.Itoa(limit))
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		if n > limit {
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`[{"message":"TotalRequests Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}]`))
			return
		}
		_, _ = w.Write([]byte(`{"totalSize":0,"done":true,"records":[]}`))
	}
}

func TestClientReportsUsageAndTheLimit(t *testing.T) {
	t.Parallel()
	f := newFake(t, orgAnswer(2))
	a := &fakeAllowance{}
	c, err := NewClient("data", testSettings(f.srv.URL), nil, WithAllowance(a))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	state := &CallState{}
	ctx := WithCallState(context.Background(), state)
	for range 2 {
		status, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL+"/services/data/v66.0/query", "")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status)
	}
	seen, ok := state.Usage.Load()
	require.True(t, ok)
	assert.Equal(t, Usage{2, 2}, seen, "the call log gets the last usage the calls saw")

	_, _, err = fetch(ctx, c, http.MethodGet, f.srv.URL+"/services/data/v66.0/query", "")
	ue := AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, KindLimited, ue.Kind, "a limit, not a credential failure")
	assert.Equal(t, http.StatusServiceUnavailable, StatusFor(err))
	assert.Equal(t, 17*time.Minute, ue.RetryAfter, "the allowance's estimate, not the breaker's")
	a.mu.Lock()
	defer a.mu.Unlock()
	assert.Equal(t, []Usage{{1, 2}, {2, 2}, {3, 2}}, a.seen, "every answer's header, the refusal's included")
	assert.Equal(t, 1, a.exceeded)
	assert.Equal(t, []bool{false, false, false}, a.asked)
}

func TestClientRefusesWhatTheAllowanceReserves(t *testing.T) {
	t.Parallel()
	f := newFake(t, orgAnswer(100))
	a := &fakeAllowance{refuse: true}
	c, err := NewClient("data", testSettings(f.srv.URL), nil, WithAllowance(a))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	tests := []struct {
		desc  string
		state *CallState
		sent  bool
	}{
		{desc: "ordinary", state: &CallState{}},
		{desc: "essential route", state: &CallState{Options: CallOptions{Essential: true}}, sent: true},
		{desc: "essential caller", state: &CallState{Essential: true}, sent: true},
		{desc: "the gateway's own call", sent: true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			ctx := context.Background()
			if tc.state != nil {
				ctx = WithCallState(ctx, tc.state)
			}
			before := f.hits.Load()
			_, _, err := fetch(ctx, c, http.MethodPost, f.srv.URL+"/services/data/v66.0/sobjects/Account", `{"Name":"x"}`)
			if tc.sent {
				assert.NoError(t, err)
				assert.Equal(t, before+1, f.hits.Load())
				return
			}
			ue := AsError(err)
			require.NotNil(t, ue)
			assert.Equal(t, KindReserved, ue.Kind)
			assert.Equal(t, 90*time.Second, ue.RetryAfter)
			assert.Equal(t, http.StatusServiceUnavailable, StatusFor(err))
			assert.True(t, strings.Contains(ue.Error(), "reserved for essential calls"))
			assert.Equal(t, before, f.hits.Load(), "nothing reached the backend")
		})
	}
}
