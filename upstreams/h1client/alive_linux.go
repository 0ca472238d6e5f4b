package h1client

import (
	"errors"
	"syscall"
)

// alive reports whether an idle connection is still open and silent: a
// non-blocking peek finds neither the server's close nor stray bytes.
// A connection without a RawConn (raw nil) is taken as alive.
func alive(raw syscall.RawConn) bool {
	if raw == nil {
		return true
	}
	var buf [1]byte
	open := false
	// Control, not Read: it neither waits for readiness nor checks the
	// deadline the connection's last exchange left behind, which may have
	// passed while the connection sat idle.
	err := raw.Control(func(fd uintptr) {
		_, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = errors.Is(rerr, syscall.EAGAIN)
	})
	return err == nil && open
}
