package upstreams

// bulkhead caps the calls in flight to one upstream. It never queues: a call
// that finds it full fails at once, so a slow backend cannot pile up
// goroutines and memory in the gateway.
type bulkhead struct {
	slots chan struct{}
}

func newBulkhead(size int) *bulkhead {
	return &bulkhead{slots: make(chan struct{}, size)}
}

// tryAcquire takes a slot if one is free. A true result must be paired with
// exactly one release.
func (b *bulkhead) tryAcquire() bool {
	select {
	case b.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

func (b *bulkhead) release() { <-b.slots }
