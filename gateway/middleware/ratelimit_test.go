package middleware

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRateLimiter(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	l := NewRateLimiter(1, 2, 100)
	ok, _, left := l.allow("u", now)
	assert.True(t, ok)
	assert.InDelta(t, 1, left, 1e-9, "one token of two left")
	ok, _, left = l.allow("u", now)
	assert.True(t, ok, "burst of two")
	assert.InDelta(t, 0, left, 1e-9)
	ok, wait, _ := l.allow("u", now)
	assert.False(t, ok)
	assert.Equal(t, time.Second, wait)
	ok, _, _ = l.allow("other", now)
	assert.True(t, ok, "users have their own buckets")
	ok, _, left = l.allow("u", now.Add(1500*time.Millisecond))
	assert.True(t, ok, "refilled")
	assert.InDelta(t, 0.5, left, 1e-9, "half the next token is on its way")
}

func TestRateLimiterMemoryIsBounded(t *testing.T) {
	t.Parallel()
	l := NewRateLimiter(1, 1, 50)
	now := time.Unix(1_700_000_000, 0)
	for i := range 10_000 {
		l.allow("user"+strconv.Itoa(i), now)
	}
	assert.Equal(t, 50, l.Len())
}

func BenchmarkRateLimiterAllow(b *testing.B) {
	b.ReportAllocs()
	l := NewRateLimiter(1e9, 1e9, 1000)
	now := time.Unix(1_700_000_000, 0)
	for b.Loop() {
		l.allow("user", now)
	}
}
