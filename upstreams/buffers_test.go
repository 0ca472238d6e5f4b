package upstreams

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClassFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, class, size int
	}{
		{n: 0, class: 0, size: 4096},
		{n: 4096, class: 0, size: 4096},
		{n: 4097, class: 1, size: 5120},
		{n: 6144, class: 2, size: 6144},
		{n: 7169, class: 4, size: 8192},
		{n: 14000, class: 7, size: 14336},
		{n: 14900, class: 8, size: 16384},
		{n: 1503554, class: 34, size: 1572864},
		{n: 4<<20 - 1, class: 40, size: 4 << 20},
		{n: 4 << 20, class: 40, size: 4 << 20},
		{n: 4<<20 + 1, class: -1, size: 0},
	}
	for _, tt := range tests {
		c, size := classFor(tt.n)
		assert.Equal(t, tt.class, c, "class of %d", tt.n)
		assert.Equal(t, tt.size, size, "size of %d", tt.n)
	}
}

// TestClassesAreTight checks every size up to the largest class: its class
// holds it, wastes less than a quarter of it, is the smallest that holds it,
// and is the class classOf finds for the class's own size.
func TestClassesAreTight(t *testing.T) {
	t.Parallel()
	last, lastSize := 0, MinBuffer
	for n := MinBuffer + 1; n <= MaxPooledBuffer; n++ {
		c, size := classFor(n)
		if size < n || size-n > n/4 {
			t.Fatalf("%d is in class %d of %d bytes", n, c, size)
		}
		if c != last {
			if c != last+1 || n != lastSize+1 || classOf(size) != c {
				t.Fatalf("class %d (%d bytes) starts at %d, after class %d of %d bytes", c, size, n, last, lastSize)
			}
			last, lastSize = c, size
		}
	}
	assert.Equal(t, bufferClasses-1, last)
	assert.Equal(t, -1, classOf(MinBuffer+1))
}

func TestBuffersReuseByClass(t *testing.T) {
	t.Parallel()
	var p Buffers
	bp := p.Get(1503554)
	assert.Equal(t, 1572864, cap(*bp))
	*bp = append(*bp, "data"...)
	p.Put(bp)
	again := p.Get(1500000)
	assert.Equal(t, 1572864, cap(*again))
	assert.Empty(t, *again, "a buffer comes back empty")

	huge := p.Get(MaxPooledBuffer + 1)
	assert.Equal(t, MaxPooledBuffer+1, cap(*huge), "past the classes: exactly the size asked")
	p.Put(huge) // left to the garbage collector, not pooled
}
