//go:build unix

package main

import (
	"strconv"
	"syscall"
)

// limitOpenFiles sets both limits of open files to n, so that the gateway
// started in this process cannot raise its soft limit past it.
func limitOpenFiles(n string) {
	v, err := strconv.ParseUint(n, 10, 64)
	if err != nil {
		panic(err)
	}
	l := syscall.Rlimit{Cur: v, Max: v}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		panic(err)
	}
}
