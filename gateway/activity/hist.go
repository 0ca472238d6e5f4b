package activity

import (
	"math/bits"
	"time"
)

// The latency histogram: fixed log-linear buckets of microseconds, four
// per power of two from 16 µs up, so a bucket spans a fifth to a quarter
// of its lower bound. Bucket 0 holds everything under 16 µs; the last
// bucket everything from 2^27 µs (about 134 s) up. A quantile is read by
// linear interpolation inside its bucket, so it is off by less than a
// bucket's width (at most 25%) and usually by far less.
const (
	// minOctave is the power of two of the first bucketed octave (16 µs).
	minOctave = 4
	// maxOctave is the power of two where the overflow bucket starts.
	maxOctave = 27
	// subBuckets per octave.
	subBuckets = 4
	// buckets in all: underflow, the octaves, overflow.
	buckets = 1 + (maxOctave-minOctave)*subBuckets + 1
)

// bucketOf is the bucket of a duration; negative durations count as 0.
func bucketOf(d time.Duration) int {
	us := uint64(max(d, 0) / time.Microsecond)
	if us < 1<<minOctave {
		return 0
	}
	e := bits.Len64(us) - 1
	if e >= maxOctave {
		return buckets - 1
	}
	sub := int(us>>(e-2)) & (subBuckets - 1)
	return 1 + (e-minOctave)*subBuckets + sub
}

// bucketBounds are the lower and upper bounds of bucket i in microseconds.
// The overflow bucket is given twice the width of the last octave's.
func bucketBounds(i int) (lo, hi float64) {
	switch {
	case i <= 0:
		return 0, 1 << minOctave
	case i >= buckets-1:
		return 1 << maxOctave, 1 << (maxOctave + 1)
	}
	e := (i-1)/subBuckets + minOctave
	sub := (i - 1) % subBuckets
	step := float64(uint64(1) << (e - 2))
	return float64(subBuckets+sub) * step, float64(subBuckets+sub+1) * step
}

// histogram is a merged copy of bucket counts, read outside the hot path.
type histogram [buckets]uint64

// quantile is the q-quantile (0 < q <= 1) in milliseconds, and false
// when the histogram is empty.
func (h *histogram) quantile(q float64) (float64, bool) {
	var total uint64
	for _, n := range h {
		total += n
	}
	if total == 0 {
		return 0, false
	}
	rank := q * float64(total)
	var seen float64
	for i, n := range h {
		if n == 0 {
			continue
		}
		if seen+float64(n) >= rank {
			lo, hi := bucketBounds(i)
			frac := (rank - seen) / float64(n)
			return (lo + frac*(hi-lo)) / 1000, true
		}
		seen += float64(n)
	}
	lo, _ := bucketBounds(buckets - 1)
	return lo / 1000, true
}
