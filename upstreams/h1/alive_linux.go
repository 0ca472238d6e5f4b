package h1

import (
	"errors"
	"net"
	"syscall"
)

// alive reports whether an idle connection is still open and silent: a
// non-blocking peek finds neither the server's close nor stray bytes.
func alive(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var buf [1]byte
	open := false
	err = raw.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = errors.Is(rerr, syscall.EAGAIN)
		return true // never wait for readiness
	})
	return err == nil && open
}
