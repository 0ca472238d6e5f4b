package h1client

import (
	"net"
	"syscall"
)

// rawOf returns nc's RawConn, or nil when it has none (a connection
// wrapped by a custom Dial, say). Without one an idle connection cannot be
// checked before reuse (alive), so it is not kept.
func rawOf(nc net.Conn) syscall.RawConn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}
