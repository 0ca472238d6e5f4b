package allowance

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// clock is a settable now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// recorder keeps what the guards report.
type recorder struct {
	mu       sync.Mutex
	used     map[string][3]int64
	engaged  map[string]bool
	exceeded map[string]int
}

func newRecorder() *recorder {
	return &recorder{used: map[string][3]int64{}, engaged: map[string]bool{}, exceeded: map[string]int{}}
}

func (r *recorder) AllowanceUsage(up string, used, limit, reserve int64, _ time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.used[up] = [3]int64{used, limit, reserve}
}

func (r *recorder) AllowanceReserve(up string, engaged bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.engaged[up] = engaged
}

func (r *recorder) AllowanceExceeded(up string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exceeded[up]++
}

func (r *recorder) isEngaged(up string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.engaged[up]
}

// memShared stands in for the redis store, with its merge rule, between
// guards of one test: what gateway/cluster's scripts do, tested there
// against a real redis-server.
type memShared struct {
	clock *clock
	mu    sync.Mutex
	st    map[string]State
	at    map[string]time.Time
	fail  bool
}

func newMemShared(c *clock) *memShared {
	return &memShared{clock: c, st: map[string]State{}, at: map[string]time.Time{}}
}

var errDown = errors.New("store down")

func (m *memShared) LoadAllowance(_ context.Context, up string) (State, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return State{}, false, errDown
	}
	st, ok := m.st[up]
	st.Age = m.clock.now().Sub(m.at[up])
	return st, ok, nil
}

func (m *memShared) SaveAllowance(_ context.Context, up string, st State) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return State{}, errDown
	}
	now := m.clock.now()
	if cur, ok := m.st[up]; ok {
		if now.Sub(m.at[up]) <= MergeWindow {
			st.Used = max(st.Used, cur.Used)
			st.Exceeded = st.Exceeded || cur.Exceeded
		}
		if st.Limit == 0 {
			st.Limit = cur.Limit
		}
	}
	st.Age = 0
	m.st[up], m.at[up] = st, now
	return st, nil
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newGuard(t *testing.T, reserve string, shared Shared, c *clock) (*Guard, *recorder) {
	t.Helper()
	rec := newRecorder()
	set := NewSet(shared, rec, discard(), c.now)
	return set.Guard("data", upstreams.AllowanceSettings{Reserve: reserve}), rec
}

func TestReserveEngagesAndHolds(t *testing.T) {
	t.Parallel()
	c := newClock()
	g, rec := newGuard(t, "10%", nil, c)
	ctx := context.Background()
	_, ok := g.Admit(ctx, false)
	assert.True(t, ok, "nothing known: calls pass")

	g.Observe(ctx, upstreams.Usage{Used: 13500, Limit: 15000})
	_, ok = g.Admit(ctx, false)
	assert.True(t, ok, "1500 remain: exactly the reserve, not under it")
	assert.False(t, rec.isEngaged("data"))

	g.Observe(ctx, upstreams.Usage{Used: 13501, Limit: 15000})
	wait, ok := g.Admit(ctx, false)
	assert.False(t, ok, "1499 remain, under the reserve of 1500")
	assert.True(t, rec.isEngaged("data"))
	// 2 calls must leave the window; 13501 spread over 24 h free one per 6.4 s.
	assert.Equal(t, MinHold, wait, "bounded below")
	_, ok = g.Admit(ctx, true)
	assert.True(t, ok, "essential calls pass")
	assert.Equal(t, [3]int64{13501, 15000, 1500}, rec.used["data"])

	c.advance(MinHold - time.Second)
	wait, ok = g.Admit(ctx, false)
	assert.False(t, ok)
	assert.Equal(t, time.Second, wait, "the hold counts from the observation")

	c.advance(time.Second)
	_, ok = g.Admit(ctx, false)
	assert.True(t, ok, "the hold ran out: one call probes")
	wait, ok = g.Admit(ctx, false)
	assert.False(t, ok, "one probe at a time")
	assert.Equal(t, probeEvery, wait)

	g.Observe(ctx, upstreams.Usage{Used: 13000, Limit: 15000})
	_, ok = g.Admit(ctx, false)
	assert.True(t, ok, "the probe's answer shows the usage left the reserve")
	assert.False(t, rec.isEngaged("data"))
}

func TestExceededTripsWithoutAReserve(t *testing.T) {
	t.Parallel()
	c := newClock()
	g, rec := newGuard(t, "", nil, c)
	ctx := context.Background()
	g.Observe(ctx, upstreams.Usage{Used: 15000, Limit: 15000})
	_, ok := g.Admit(ctx, false)
	assert.True(t, ok, "no reserve: at the limit the org decides")

	wait := g.Exceeded(ctx)
	assert.Equal(t, MinHold, wait)
	_, ok = g.Admit(ctx, false)
	assert.False(t, ok, "tripped for every caller that is not essential")
	assert.Equal(t, 1, rec.exceeded["data"])
	st := g.set.Statuses(ctx)[0]
	assert.True(t, st.Exceeded)
	assert.True(t, st.ReserveEngaged)

	c.advance(2 * time.Second)
	g.Observe(ctx, upstreams.Usage{Used: 14990, Limit: 15000})
	_, ok = g.Admit(ctx, false)
	assert.True(t, ok, "an essential call's answer, later, says the org serves again")
}

func TestMergeKeepsTheFreshest(t *testing.T) {
	t.Parallel()
	c := newClock()
	g, _ := newGuard(t, "10%", nil, c)
	at := c.now()
	tests := []struct {
		desc string
		st   State
		at   time.Time
		want State
	}{
		{desc: "first", st: State{Used: 100, Limit: 1000}, at: at, want: State{Used: 100, Limit: 1000}},
		{desc: "an answer overtaken within the window", st: State{Used: 90, Limit: 1000}, at: at.Add(500 * time.Millisecond),
			want: State{Used: 100, Limit: 1000}},
		{desc: "a trip sticks within the window", st: State{Used: 95, Exceeded: true}, at: at.Add(600 * time.Millisecond),
			want: State{Used: 100, Limit: 1000, Exceeded: true}},
		{desc: "an old observation changes nothing", st: State{Used: 500, Limit: 1000}, at: at.Add(-5 * time.Second),
			want: State{Used: 100, Limit: 1000, Exceeded: true}},
		{desc: "newer past the window replaces, a fallen usage included", st: State{Used: 80, Limit: 1000},
			at: at.Add(3 * time.Second), want: State{Used: 80, Limit: 1000}},
		{desc: "an unknown limit keeps the known one", st: State{Used: 85, Exceeded: true}, at: at.Add(5 * time.Second),
			want: State{Used: 85, Limit: 1000, Exceeded: true}},
	}
	for _, tc := range tests {
		g.merge(tc.st, tc.at)
		assert.Equal(t, tc.want, g.view, tc.desc)
	}
}

func TestReplicasShareTheCrossing(t *testing.T) {
	t.Parallel()
	c := newClock()
	shared := newMemShared(c)
	a, _ := newGuard(t, "1000", shared, c)
	b, recB := newGuard(t, "1000", shared, c)
	ctx := context.Background()
	a.Observe(ctx, upstreams.Usage{Used: 100, Limit: 15000})
	_, ok := b.Admit(ctx, false)
	require.True(t, ok)
	a.Observe(ctx, upstreams.Usage{Used: 14001, Limit: 15000})
	_, ok = b.Admit(ctx, false)
	assert.False(t, ok, "b's next call is refused on what a saw")
	assert.True(t, recB.isEngaged("data"))

	shared.mu.Lock()
	shared.fail = true
	shared.mu.Unlock()
	c.advance(2 * time.Second)
	b.Observe(ctx, upstreams.Usage{Used: 200, Limit: 15000})
	_, ok = b.Admit(ctx, false)
	assert.True(t, ok, "the store down, b decides on its own answers")
}

func TestHoldFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc      string
		st        State
		reserve   int64
		slope     float64
		haveSlope bool
		want      time.Duration
	}{
		{desc: "limit never seen", st: State{Exceeded: true}, want: MinHold},
		{desc: "even spread: 1500 calls to free of 15000", st: State{Used: 15000, Limit: 15000}, reserve: 1499,
			want: 2*time.Hour + 24*time.Minute /* bounded */, slope: 0},
		{desc: "even spread, within bounds", st: State{Used: 100000, Limit: 100000}, reserve: 99,
			want: 86*time.Second + 400*time.Millisecond},
		{desc: "falling at 2 calls a second", st: State{Used: 15000, Limit: 15000}, reserve: 199, slope: -2, haveSlope: true,
			want: 100 * time.Second},
		{desc: "rising: the even spread", st: State{Used: 100000, Limit: 100000}, reserve: 99, slope: 3, haveSlope: true,
			want: 86*time.Second + 400*time.Millisecond},
		{desc: "a tiny org", st: State{Used: 28, Limit: 30}, reserve: 3, want: MaxHold},
	}
	for _, tc := range tests {
		want := min(max(tc.want, MinHold), MaxHold).Round(time.Second)
		assert.Equal(t, want, holdFor(tc.st, tc.reserve, tc.slope, tc.haveSlope), tc.desc)
	}
}

func TestTrend(t *testing.T) {
	t.Parallel()
	var tr trend
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, ok := tr.slope()
	assert.False(t, ok)
	for i := range 20 { // one a second for 20 s: too short a span
		tr.add(at.Add(time.Duration(i)*time.Second), int64(1000+i))
	}
	_, ok = tr.slope()
	assert.False(t, ok, "under 30 s of samples")
	for i := 20; i <= 60; i++ {
		tr.add(at.Add(time.Duration(i)*time.Second), int64(1000+i))
	}
	s, ok := tr.slope()
	require.True(t, ok)
	assert.InDelta(t, 1.0, s, 0.1, "one call a second")
	// twenty minutes later the usage falls by 3 a second: only the last ten minutes count
	for i := 61; i < 1260; i += 5 {
		used := int64(1060)
		if i > 660 {
			used -= 3 * int64(i-660)
		}
		tr.add(at.Add(time.Duration(i)*time.Second), used)
	}
	s, ok = tr.slope()
	require.True(t, ok)
	assert.InDelta(t, -3.0, s, 0.1)
}

func TestPollWhenIdle(t *testing.T) {
	t.Parallel()
	rec := newRecorder()
	g := NewSet(nil, rec, discard(), nil).Guard("data", upstreams.AllowanceSettings{Poll: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	polls := make(chan struct{}, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Poll(ctx, 40*time.Millisecond, func(context.Context) (upstreams.Usage, error) {
			polls <- struct{}{}
			return upstreams.Usage{Used: 42, Limit: 15000}, nil
		})
	}()
	<-polls
	require.Eventually(t, func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return rec.used["data"][0] == 42
	}, 5*time.Second, time.Millisecond)
	cancel()
	<-done
}

func TestAdminHandler(t *testing.T) {
	t.Parallel()
	c := newClock()
	set := NewSet(nil, newRecorder(), discard(), c.now)
	set.Guard("files", upstreams.AllowanceSettings{})
	g := set.Guard("data", upstreams.AllowanceSettings{Reserve: "10%"})
	g.Observe(context.Background(), upstreams.Usage{Used: 13600, Limit: 15000})
	c.advance(1500 * time.Millisecond)
	rr := httptest.NewRecorder()
	set.Handler().ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "/admin/allowance", nil))
	assert.Equal(t, "application/json", rr.Header().Get("Content-Type"))
	var got struct {
		Upstreams []Status `json:"upstreams"`
	}
	require.NoError(t, json.Unmarshal(rr.Body.Bytes(), &got))
	assert.Equal(t, []Status{
		{Upstream: "data", Known: true, Used: 13600, Limit: 15000, Remaining: 1400, Reserve: 1500, ReserveEngaged: true,
			RetryAfter: 641, SeenAgo: 1.5}, // 101 calls to free at 13600 a day: 642 s, 1.5 s gone
		{Upstream: "files"},
	}, got.Upstreams)
}
