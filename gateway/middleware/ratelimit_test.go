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
	ok, _ := l.allow("u", now)
	assert.True(t, ok)
	ok, _ = l.allow("u", now)
	assert.True(t, ok, "burst of two")
	ok, wait := l.allow("u", now)
	assert.False(t, ok)
	assert.Equal(t, time.Second, wait)
	ok, _ = l.allow("other", now)
	assert.True(t, ok, "users have their own buckets")
	ok, _ = l.allow("u", now.Add(time.Second))
	assert.True(t, ok, "refilled")
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
