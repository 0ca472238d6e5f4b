package h1wire

import "time"

// Slack returns the deadline to set on a connection for want, the moment a
// timeout ends, given cur, the deadline in place: cur itself when it lies
// from want to twice slack after it (keep is then true and nothing need be
// set), else want plus slack. A zero want means no deadline, which only a
// zero cur is.
//
// Both ends set their connections' deadlines this way, with a slack of
// 1/64 of the timeout (SlackOf): a kept-alive connection then re-sets a
// deadline about once per slack instead of once or twice per exchange, each
// set taking the poller's lock and moving a runtime timer. A timeout ends
// at most twice its slack late (1/32 of it), never early. The window is
// twice what is set so that a fixed deadline asked for again, whose slack
// shrinks with the time left, keeps being served by the first one set.
func Slack(cur, want time.Time, slack time.Duration) (t time.Time, keep bool) {
	if want.IsZero() {
		return want, cur.IsZero()
	}
	if !cur.IsZero() && !cur.Before(want) && !cur.After(want.Add(2*slack)) {
		return cur, true
	}
	return want.Add(slack), false
}

// SlackOf is the slack of a timeout of d: d/64, none for d <= 0.
func SlackOf(d time.Duration) time.Duration { return max(d, 0) / 64 }
