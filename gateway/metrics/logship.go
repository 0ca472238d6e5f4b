package metrics

// QueueDepth reports how many call-log entries were accepted and neither
// delivered nor dropped yet.
func (m *Metrics) QueueDepth(n int) { m.logQueueDepth.Set(float64(n)) }

// Sent counts n call-log entries the collector accepted.
func (m *Metrics) Sent(n int) { m.logSent.Add(nonNegative(n)) }

// BatchFailed counts one POST of a batch that failed after the client's
// retries (the batch is then held and sent again, or refused for good); a
// POST that fails and then succeeds on a client retry is not counted.
func (m *Metrics) BatchFailed() { m.logBatchesFailed.Inc() }

// Dropped counts n call-log entries that will never reach the collector,
// by reason (calllog.DropReasons).
func (m *Metrics) Dropped(reason string, n int) {
	m.logDropped.WithLabelValues(reason).Add(nonNegative(n))
}

// DiskQueue reports the call log's disk queue: entries not yet delivered
// and the size of its files.
func (m *Metrics) DiskQueue(entries int, bytes int64) {
	m.logDiskEntries.Set(float64(entries))
	m.logDiskBytes.Set(float64(bytes))
}

// nonNegative guards the counters: Counter.Add panics on a negative value,
// and a shipper's arithmetic slip must not take a request down with it.
func nonNegative(n int) float64 {
	if n < 0 {
		return 0
	}
	return float64(n)
}
