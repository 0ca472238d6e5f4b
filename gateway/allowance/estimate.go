package allowance

import (
	"math"
	"time"
)

// Bounds of a hold, the Retry-After of a refusal: below a minute the
// usage of a 24-hour window has hardly moved, and a client told to wait
// more than an hour is better told to come back and ask again.
const (
	MinHold = 30 * time.Second
	MaxHold = time.Hour
)

// window is the org's accounting period: its calls of the last 24 hours.
const window = 24 * time.Hour

// holdFor estimates how long after st was observed its usage leaves the
// reserve: until need = used - (limit - reserve) + 1 calls have left the
// rolling 24-hour window. When the usage was seen falling (slope < 0,
// calls per second over the last minutes) at that pace; otherwise as if
// the calls of the last 24 hours were spread evenly over them and no new
// one came, which frees used/24h calls a second. Bounded to [MinHold,
// MaxHold]; MinHold when the org's limit was never seen.
func holdFor(st State, reserve int64, slope float64, haveSlope bool) time.Duration {
	if st.Limit <= 0 {
		return MinHold
	}
	need := max(st.Used-(st.Limit-reserve)+1, 1)
	var secs float64
	if haveSlope && slope < 0 {
		secs = float64(need) / -slope
	} else {
		secs = float64(need) * window.Seconds() / float64(max(st.Used, 1))
	}
	if math.IsNaN(secs) || secs > MaxHold.Seconds() {
		return MaxHold
	}
	return max(time.Duration(secs*float64(time.Second)), MinHold).Round(time.Second)
}

// Spacing of the trend's samples: the usage's pace is read over minutes,
// from samples at least sampleEvery apart, over at most trendSpan, and
// only once they span minSpan.
const (
	sampleEvery = 5 * time.Second
	trendSpan   = 10 * time.Minute
	minSpan     = 30 * time.Second
	samples     = int(trendSpan/sampleEvery) + 1
)

// trend keeps recent (time, used) samples to read the usage's pace.
type trend struct {
	at   [samples]time.Time
	used [samples]int64
	// n samples, the newest at last.
	n, last int
}

// add records used at t; a sample within sampleEvery of the newest
// replaces it.
func (t *trend) add(at time.Time, used int64) {
	if t.n > 0 && at.Sub(t.at[t.last]) < sampleEvery {
		t.used[t.last] = used
		return
	}
	if t.n > 0 {
		t.last = (t.last + 1) % samples
	}
	t.at[t.last], t.used[t.last] = at, used
	t.n = min(t.n+1, samples)
}

// slope is the usage's pace in calls per second between the oldest sample
// within trendSpan of the newest and the newest; false until they span
// minSpan.
func (t *trend) slope() (float64, bool) {
	if t.n < 2 {
		return 0, false
	}
	newest := t.last
	oldest := newest
	for i := 1; i < t.n; i++ {
		j := (newest - i + samples) % samples
		if t.at[newest].Sub(t.at[j]) > trendSpan {
			break
		}
		oldest = j
	}
	span := t.at[newest].Sub(t.at[oldest])
	if span < minSpan {
		return 0, false
	}
	return float64(t.used[newest]-t.used[oldest]) / span.Seconds(), true
}
