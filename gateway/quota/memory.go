package quota

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// Request is one request of a consumer to count.
type Request struct {
	// Consumer is what is counted: "key:<id>" or "user:<id>".
	Consumer string
	// Policy is the policy's Name.
	Policy string
	// Counts are the windows it is counted in (Policy.Counts).
	Counts []Count
}

// Store counts requests. Memory counts in this replica; gateway/cluster's
// in Redis, across replicas. Both calls must return within a bounded time.
type Store interface {
	// Take counts the request in every window of req.Counts when none is
	// spent and returns -1; otherwise it counts nothing and returns the
	// index of a spent window. Either way it sets each count's Used (after
	// the request when taken). An error means no decision could be taken
	// (a shared store failing closed).
	Take(ctx context.Context, req *Request) (int, error)
	// Peek sets each count's Used to the window's count now.
	Peek(ctx context.Context, req *Request) error
}

// Memory counts in this replica's memory, at most max consumers: the
// least recently seen is forgotten past it. It is the memory store's
// Store, and with a shared store what this replica keeps of it (Record):
// the consumers /admin/quotas lists and the counts it goes on from while
// the shared store fails. Safe for concurrent use.
type Memory struct {
	max int
	now func() time.Time

	mu        sync.Mutex
	consumers map[string]*list.Element
	order     *list.List // front: most recently seen
}

// consumer is what Memory keeps of one consumer.
type consumer struct {
	name, policy string
	counts       map[string]*counted
}

type counted struct {
	name        string
	quota, used int64
	window      int64
	reset       time.Time
}

// NewMemory keeps at most maxConsumers consumers; now nil means time.Now.
func NewMemory(maxConsumers int, now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{max: max(maxConsumers, 1), now: now, consumers: map[string]*list.Element{}, order: list.New()}
}

// Take implements Store. It never fails.
func (m *Memory) Take(_ context.Context, req *Request) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.touch(req)
	spent := -1
	for i := range req.Counts {
		k := c.count(&req.Counts[i])
		req.Counts[i].Used = k.used
		if spent < 0 && k.used >= k.quota {
			spent = i
		}
	}
	if spent >= 0 {
		return spent, nil
	}
	for i := range req.Counts {
		k := c.counts[req.Counts[i].Key]
		k.used++
		req.Counts[i].Used = k.used
	}
	return -1, nil
}

// Peek implements Store.
func (m *Memory) Peek(_ context.Context, req *Request) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.consumers[req.Consumer]
	for i := range req.Counts {
		req.Counts[i].Used = 0
		if ok {
			if k := el.Value.(*consumer).counts[req.Counts[i].Key]; k != nil {
				req.Counts[i].Used = k.used
			}
		}
	}
	return nil
}

// Record keeps req's counts as a shared store counted them: what the
// listing shows, and where Take goes on from while that store fails.
func (m *Memory) Record(req *Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.touch(req)
	for i := range req.Counts {
		c.count(&req.Counts[i]).used = req.Counts[i].Used
	}
}

// touch returns req's consumer, made or moved to the front, its expired
// windows dropped.
func (m *Memory) touch(req *Request) *consumer {
	if el, ok := m.consumers[req.Consumer]; ok {
		m.order.MoveToFront(el)
		c := el.Value.(*consumer)
		c.policy = req.Policy
		now := m.now()
		for key, k := range c.counts {
			if !now.Before(k.reset) {
				delete(c.counts, key)
			}
		}
		return c
	}
	if m.order.Len() >= m.max {
		oldest := m.order.Back()
		delete(m.consumers, oldest.Value.(*consumer).name)
		m.order.Remove(oldest)
	}
	c := &consumer{name: req.Consumer, policy: req.Policy, counts: map[string]*counted{}}
	m.consumers[req.Consumer] = m.order.PushFront(c)
	return c
}

// count is c's counter of the window of n, made at 0.
func (c *consumer) count(n *Count) *counted {
	k := c.counts[n.Key]
	if k == nil {
		k = &counted{name: n.Name, quota: n.Quota, window: n.Window, reset: n.Reset}
		c.counts[n.Key] = k
	}
	k.quota = n.Quota
	return k
}

// Consumers returns the consumers kept, most recently seen first, at most
// limit of them (limit < 1: all), each with the windows it was last
// counted in that have not ended.
func (m *Memory) Consumers(limit int) []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var out []Request
	for el := m.order.Front(); el != nil && (limit < 1 || len(out) < limit); el = el.Next() {
		c := el.Value.(*consumer)
		r := Request{Consumer: c.name, Policy: c.policy}
		for key, k := range c.counts {
			if now.Before(k.reset) {
				r.Counts = append(r.Counts, Count{Name: k.name, Quota: k.quota, Window: k.window, Reset: k.reset, Key: key, Used: k.used})
			}
		}
		sortCounts(r.Counts)
		out = append(out, r)
	}
	return out
}

// Len is the number of consumers kept.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}
