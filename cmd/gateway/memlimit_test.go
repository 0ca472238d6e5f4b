package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTuneMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	tests := []struct {
		desc string
		env  map[string]string
		want int64
	}{
		{desc: "nothing set: no limit", env: nil, want: 0},
		{desc: "the container's limit, less a tenth", env: map[string]string{"GATEWAY_MEMORY_LIMIT": "536870912"}, want: 483183820},
		{desc: "not a number: no limit", env: map[string]string{"GATEWAY_MEMORY_LIMIT": "512Mi"}, want: 0},
		{desc: "GOMEMLIMIT wins", env: map[string]string{"GOMEMLIMIT": "100MiB", "GATEWAY_MEMORY_LIMIT": "536870912"}, want: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			debug.SetMemoryLimit(math.MaxInt64)
			got := tuneMemory(func(k string) string { return tt.env[k] })
			assert.Equal(t, tt.want, got)
			if tt.want > 0 {
				assert.Equal(t, tt.want, debug.SetMemoryLimit(-1), "the runtime's soft limit")
			}
		})
	}
}
