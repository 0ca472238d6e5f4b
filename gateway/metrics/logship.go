package metrics

// QueueDepth reports how many call-log entries wait in the shipper's queue.
func (m *Metrics) QueueDepth(n int) { m.logQueueDepth.Set(float64(n)) }

// Sent counts n call-log entries the collector accepted.
func (m *Metrics) Sent(n int) { m.logSent.Add(nonNegative(n)) }

// BatchFailed counts one batch the shipper gave up on after its retries;
// a batch that fails and then succeeds on a retry is not counted.
func (m *Metrics) BatchFailed() { m.logBatchesFailed.Inc() }

// Dropped counts n call-log entries that will never reach the collector:
// pushed out of a full queue, in a failed batch, enqueued after the
// shipper closed, or still queued when its shutdown deadline passed.
func (m *Metrics) Dropped(n int) { m.logDropped.Add(nonNegative(n)) }

// nonNegative guards the counters: Counter.Add panics on a negative value,
// and a shipper's arithmetic slip must not take a request down with it.
func nonNegative(n int) float64 {
	if n < 0 {
		return 0
	}
	return float64(n)
}
