package h1client

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An idle connection whose last exchange left a deadline that has since
// passed is still alive: the check looks at the socket, not the deadline.
func TestAliveIgnoresAPassedDeadline(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer nc.Close()
	server := <-accepted
	require.NoError(t, nc.SetDeadline(time.Now().Add(-time.Second)))
	var check idleCheck
	check.init(rawOf(nc))
	assert.True(t, check.alive(), "open and silent, its deadline long past")

	_, err = server.Write([]byte("x"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !check.alive() }, 2*time.Second, 5*time.Millisecond, "stray bytes")
	server.Close()
}
