package main

import (
	"runtime/debug"
	"strconv"
	"strings"
)

// memoryLimitShare is the share of the container's memory limit
// (GATEWAY_MEMORY_LIMIT) given to the Go runtime as its soft limit: the
// rest is for what the runtime does not count (the binary, thread stacks
// of the kernel, page cache of the spool) and for the collector to act
// before the kernel does.
const memoryLimitShare = 0.9

// tuneMemory sets the garbage collector from the environment and returns
// the soft memory limit in force (0: none):
//
//   - GOGC and GOMEMLIMIT, when set, are the Go runtime's own and win;
//   - otherwise GATEWAY_MEMORY_LIMIT (bytes, as the Helm chart sets it from
//     the container's memory limit through the downward API) sets the
//     soft limit to 90% of it.
//
// The GC target stays Go's default (GOGC=100): every answer is bounded by
// its route's cap and held in pooled buffers, so the live heap is small
// and a higher target would only keep more garbage (RSS) for little CPU;
// see docs/operations/tuning.md.
func tuneMemory(getenv func(string) string) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return debug.SetMemoryLimit(-1)
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(getenv("GATEWAY_MEMORY_LIMIT")), 10, 64)
	if err != nil || limit <= 0 {
		return 0
	}
	soft := int64(float64(limit) * memoryLimitShare)
	debug.SetMemoryLimit(soft)
	return soft
}
