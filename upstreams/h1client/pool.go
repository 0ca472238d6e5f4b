package h1client

import (
	"sync"
	"time"
)

// pool keeps idle connections per host address, most recently used last.
type pool struct {
	max     int
	timeout time.Duration

	mu   sync.Mutex
	idle map[string][]*conn
}

func newPool(max int, timeout time.Duration) *pool {
	return &pool{max: max, timeout: timeout, idle: make(map[string][]*conn)}
}

// get returns the most recently used idle connection to addr, closing the
// ones idle for longer than the timeout, or nil.
func (p *pool) get(addr string) *conn {
	now := time.Now()
	var expired []*conn
	p.mu.Lock()
	list := p.idle[addr]
	var c *conn
	for len(list) > 0 {
		last := list[len(list)-1]
		list[len(list)-1] = nil
		list = list[:len(list)-1]
		if now.Sub(last.idleSince) <= p.timeout {
			c = last
			break
		}
		expired = append(expired, last)
	}
	p.idle[addr] = list
	p.mu.Unlock()
	for _, e := range expired {
		e.close()
	}
	return c
}

// put keeps c for reuse, or closes it when addr already has max idle
// connections.
func (p *pool) put(c *conn) {
	c.idleSince = time.Now()
	p.mu.Lock()
	list := p.idle[c.addr]
	if len(list) < p.max {
		p.idle[c.addr] = append(list, c)
		c = nil
	}
	p.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// closeIdle closes every idle connection.
func (p *pool) closeIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle = make(map[string][]*conn)
	p.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.close()
		}
	}
}
