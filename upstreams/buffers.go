package upstreams

import (
	"math/bits"
	"sync"
)

// Buffer sizes come in classes, four to each doubling (the quarter steps
// 1, 1.25, 1.5 and 1.75 times a power of two), from MinBuffer to
// MaxPooledBuffer; a buffer larger than the largest class is allocated at
// its exact size and left to the garbage collector, so a rare huge answer
// does not pin its memory in a pool. A buffer wastes less than a fifth of
// itself past what it was asked for (half, with a class per doubling: a
// 1.5 MB answer held 2 MiB).
const (
	// MinBuffer is the smallest class, 4 KiB.
	MinBuffer = 1 << minShift
	// MaxPooledBuffer is the largest class kept for reuse, 4 MiB.
	MaxPooledBuffer = 1 << maxShift
	minShift        = 12
	maxShift        = 22
	// classSteps is the number of classes to a doubling.
	classSteps = 4
	// bufferClasses is the number of classes, MinBuffer to MaxPooledBuffer:
	// four to each doubling, and MaxPooledBuffer itself.
	bufferClasses = (maxShift-minShift)*classSteps + 1
)

// Buffers pools byte buffers by size class, so that answers of a steady
// size neither allocate nor zero a buffer each, and a buffer is never
// more than a quarter larger than what it was asked for. The zero value is
// ready to use; safe for concurrent use.
type Buffers struct {
	classes [bufferClasses]sync.Pool
}

// Get returns an empty buffer of at least n bytes' capacity: a pooled one
// of n's class, a new one of the class's size, or, past the largest class,
// a new one of exactly n.
func (p *Buffers) Get(n int) *[]byte {
	c, size := classFor(n)
	if c < 0 {
		b := make([]byte, 0, n)
		return &b
	}
	if bp, _ := p.classes[c].Get().(*[]byte); bp != nil {
		return bp
	}
	b := make([]byte, 0, size)
	return &b
}

// Put gives a buffer from Get back (its contents are dropped); one whose
// capacity is not a class size is left to the garbage collector.
func (p *Buffers) Put(bp *[]byte) {
	if c := classOf(cap(*bp)); c >= 0 {
		*bp = (*bp)[:0]
		p.classes[c].Put(bp)
	}
}

// classOf returns the class whose size is exactly n, or -1.
func classOf(n int) int {
	if c, size := classFor(n); size == n {
		return c
	}
	return -1
}

// classFor returns the smallest class of at least n bytes and its size;
// -1 when n is larger than every class.
func classFor(n int) (int, int) {
	if n <= MinBuffer {
		return 0, MinBuffer
	}
	if n > MaxPooledBuffer {
		return -1, 0
	}
	// 2^e < n <= 2^(e+1): the classes above 2^e are 2^e plus one to four
	// quarters of it.
	e := bits.Len(uint(n-1)) - 1
	quarter := 1 << e / classSteps
	steps := (n - 1<<e + quarter - 1) / quarter
	return (e-minShift)*classSteps + steps, 1<<e + steps*quarter
}

// capped is Get for a buffer that must not pass limit+1 bytes: n's class
// when it fits, else exactly limit+1 bytes (not pooled).
func (p *Buffers) capped(n int, limit int64) *[]byte {
	if _, size := classFor(n); size > 0 && int64(size) <= limit+1 {
		return p.Get(n)
	}
	b := make([]byte, 0, min(int64(max(n, 0)), limit+1))
	return &b
}
