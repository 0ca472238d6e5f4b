package main

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPortPoolSkipsTakenPortsAndNeverRepeats(t *testing.T) {
	p := newPortPool()
	first := p.next
	// A port something listens on is skipped.
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(first))
	if err == nil {
		t.Cleanup(func() { _ = l.Close() })
	}
	seen := map[string]bool{}
	for range 5 {
		port, err := p.take()
		require.NoError(t, err)
		n, err := strconv.Atoi(port)
		require.NoError(t, err)
		assert.Less(t, n, p.end, "below the ephemeral range")
		assert.NotEqual(t, first, n, "the port held by a listener")
		assert.False(t, seen[port], "port %s handed out twice", port)
		seen[port] = true
	}
}

func TestPortPoolEnds(t *testing.T) {
	p := &portPool{next: 100, end: 100}
	_, err := p.take()
	assert.Error(t, err)
}
