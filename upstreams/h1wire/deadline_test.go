package h1wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSlack(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 1, 1, 0, 1, 4, 0, time.UTC)
	slack := time.Second
	tests := []struct {
		desc      string
		cur, want time.Time
		slack     time.Duration
		wantSet   time.Time
		wantKeeps bool
	}{
		{desc: "none set", want: want, slack: slack, wantSet: want.Add(slack)},
		{desc: "at the deadline", cur: want, want: want, slack: slack, wantSet: want, wantKeeps: true},
		{desc: "at twice the slack", cur: want.Add(2 * slack), want: want, slack: slack, wantSet: want.Add(2 * slack),
			wantKeeps: true},
		{desc: "before the deadline", cur: want.Add(-time.Nanosecond), want: want, slack: slack, wantSet: want.Add(slack)},
		{desc: "past twice the slack", cur: want.Add(2*slack + time.Nanosecond), want: want, slack: slack,
			wantSet: want.Add(slack)},
		{desc: "no slack", cur: want.Add(time.Nanosecond), want: want, wantSet: want},
		{desc: "no deadline, none set", wantKeeps: true},
		{desc: "no deadline, one set", cur: want},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, keeps := Slack(tt.cur, tt.want, tt.slack)
			assert.Equal(t, tt.wantSet, got)
			assert.Equal(t, tt.wantKeeps, keeps)
		})
	}
}

func TestSlackOf(t *testing.T) {
	t.Parallel()
	assert.Equal(t, time.Second, SlackOf(64*time.Second))
	assert.Equal(t, time.Duration(0), SlackOf(-time.Second))
	assert.Equal(t, time.Duration(0), SlackOf(0))
}
