//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package h1client

import "syscall"

// idleCheck cannot peek without blocking here, so no idle connection can
// be shown to be free of stray bytes: none is reused (use the std
// transport on such systems for keep-alive).
type idleCheck struct{}

func (ic *idleCheck) init(syscall.RawConn) {}

func (ic *idleCheck) alive() bool { return false }
