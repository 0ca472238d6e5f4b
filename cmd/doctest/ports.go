package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// portPool hands out loopback ports for the pages' gateways from below the
// kernel's ephemeral range, so that no listener on port 0 (a page's
// sandbox, a collector, another test) can be given the same port between
// the pool's check and the gateway's listen; and never the same port twice
// within one run, since pages run in parallel.
type portPool struct {
	mu        sync.Mutex
	next, end int
}

// poolSize is how many ports a pool may hand out.
const poolSize = 8000

// newPortPool returns a pool of the poolSize ports below the ephemeral
// range (/proc/sys/net/ipv4/ip_local_port_range; 32768 where it cannot be
// read), starting at an offset from the process id so that two runs at
// once seldom meet.
func newPortPool() *portPool {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > poolSize+1024 {
				low = n
			}
		}
	}
	start := low - poolSize
	return &portPool{next: start + os.Getpid()%(poolSize/2), end: low}
}

// take returns a port nothing listens on now.
func (p *portPool) take() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.next < p.end; p.next++ {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p.next))
		if err != nil {
			continue
		}
		port := p.next
		p.next++
		if err := l.Close(); err != nil {
			return "", err
		}
		return strconv.Itoa(port), nil
	}
	return "", fmt.Errorf("no free loopback port left below %d", p.end)
}
