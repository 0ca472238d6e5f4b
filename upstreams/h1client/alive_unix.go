//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package h1client

import (
	"syscall"
)

// idleCheck tells whether an idle connection is still open and silent: a
// non-blocking peek finds neither the server's close nor stray bytes (the
// start of an answer nobody asked for, which the next request would read
// as its own). A connection without a RawConn cannot be checked and counts
// as dead. It is set up once per connection (init), so that a check
// allocates nothing.
type idleCheck struct {
	raw  syscall.RawConn
	peek func(fd uintptr) // peekFD bound to this check
	open bool
	buf  [1]byte
}

func (ic *idleCheck) init(raw syscall.RawConn) {
	ic.raw = raw
	ic.peek = ic.peekFD
}

// alive runs the check. Control, not Read: it neither waits for readiness
// nor checks the deadline the connection's last exchange left behind,
// which may have passed while the connection sat idle.
func (ic *idleCheck) alive() bool {
	if ic.raw == nil {
		return false
	}
	ic.open = false
	err := ic.raw.Control(ic.peek)
	return err == nil && ic.open
}

func (ic *idleCheck) peekFD(fd uintptr) {
	for {
		_, _, err := syscall.Recvfrom(int(fd), ic.buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if err == syscall.EINTR {
			continue
		}
		ic.open = err == syscall.EAGAIN
		return
	}
}
