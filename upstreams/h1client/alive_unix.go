//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package h1client

import (
	"errors"
	"syscall"
)

// alive reports whether an idle connection is still open and silent: a
// non-blocking peek finds neither the server's close nor stray bytes (the
// start of an answer nobody asked for, which the next request would read
// as its own). A connection without a RawConn (raw nil) cannot be checked
// and is reported dead.
func alive(raw syscall.RawConn) bool {
	if raw == nil {
		return false
	}
	var buf [1]byte
	open := false
	// Control, not Read: it neither waits for readiness nor checks the
	// deadline the connection's last exchange left behind, which may have
	// passed while the connection sat idle.
	err := raw.Control(func(fd uintptr) {
		for {
			_, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if rerr == syscall.EINTR {
				continue
			}
			open = errors.Is(rerr, syscall.EAGAIN)
			return
		}
	})
	return err == nil && open
}
