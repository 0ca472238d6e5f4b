package calllog

// maxCopyBytes bounds the part of a body Enqueue copies. Redaction runs on
// this copy, so it is kept larger than the logged size: masking can shorten
// a body a lot.
const maxCopyBytes = 64 << 10

// retainCap is the largest body buffer a free queue slot keeps for reuse;
// larger ones go back to the collector so one burst of big bodies does not
// pin memory for the life of the process.
const retainCap = 4 << 10

// queued is one entry waiting to be sent. Its e.Body is a buffer owned by
// the queue, not the caller's.
type queued struct {
	e       Entry
	omitted int // body bytes left out of the copy
}

// ring is a FIFO of at most max entries that drops the oldest when full or
// when the copied bodies would pass maxBytes. Its slots double when all
// are taken, up to max, so it holds the memory of the longest backlog met,
// not of max entries (entries pass through every slot of a ring, so each
// one allocated becomes resident). Slots keep their body buffers, so
// steady-state Enqueue does not allocate. Not safe for concurrent use: the
// Shipper guards it with its mutex.
type ring struct {
	slots    []queued
	head, n  int
	max      int
	bytes    int // body bytes held
	maxBytes int
}

// minRing is a ring's first number of slots.
const minRing = 64

func newRing(size, maxBytes int) ring {
	return ring{max: size, maxBytes: maxBytes}
}

// grow doubles the slots (at least minRing, at most max), oldest entry
// first; the free slots come along with their body buffers.
func (q *ring) grow() {
	next := make([]queued, min(max(2*len(q.slots), minRing), q.max))
	for i := range q.slots {
		next[i] = q.slots[(q.head+i)%len(q.slots)]
	}
	q.slots, q.head = next, 0
}

// push copies e into the queue and returns how many older entries it
// dropped to make room.
func (q *ring) push(e *Entry) int {
	body, omitted := e.Body, 0
	if len(body) > maxCopyBytes {
		body, omitted = body[:maxCopyBytes], len(body)-maxCopyBytes
	}
	dropped := 0
	for q.n > 0 && (q.n == q.max || q.bytes+len(body) > q.maxBytes) {
		q.dropOldest()
		dropped++
	}
	if q.n == len(q.slots) {
		q.grow()
	}
	slot := &q.slots[(q.head+q.n)%len(q.slots)]
	buf := slot.e.Body[:0]
	slot.e = *e
	slot.e.Body = append(buf, body...)
	slot.omitted = omitted
	q.bytes += len(body)
	q.n++
	return dropped
}

func (q *ring) dropOldest() {
	q.release(q.head)
	q.head = (q.head + 1) % len(q.slots)
	q.n--
}

// release empties slot i, keeping only a small body buffer for reuse, and
// drops its references so the strings it held can be collected.
func (q *ring) release(i int) {
	buf := q.slots[i].e.Body
	q.bytes -= len(buf)
	if cap(buf) > retainCap {
		buf = nil
	}
	q.slots[i] = queued{e: Entry{Body: buf[:0]}}
}

// popInto moves up to max of the oldest entries into batch (reusing its
// length as scratch) and returns it; with maxBytes > 0 it stops once their
// estimated size (bodies counted up to bodyCap) reaches it (one entry is always taken). Entries are
// swapped, not copied: the slot gets the batch element's old buffer back
// for reuse.
func (q *ring) popInto(batch []queued, max, maxBytes, bodyCap int) []queued {
	batch = batch[:0]
	size := 0
	for len(batch) < max && q.n > 0 && (maxBytes <= 0 || len(batch) == 0 || size < maxBytes) {
		k := len(batch)
		if k < cap(batch) {
			batch = batch[:k+1]
		} else {
			batch = append(batch, queued{})
		}
		batch[k], q.slots[q.head] = q.slots[q.head], batch[k]
		q.bytes -= len(batch[k].e.Body)
		q.bytes += len(q.slots[q.head].e.Body)
		q.release(q.head)
		q.head = (q.head + 1) % len(q.slots)
		q.n--
		size += estimate(&batch[k].e, bodyCap)
	}
	return batch
}

// estimate is about what e takes in a batch before compression: its fields,
// its body as logged (at most bodyCap bytes and the truncation marker), and
// the room of a format's names and punctuation.
func estimate(e *Entry, bodyCap int) int {
	return 256 + len(e.Text) + len(e.UserID) + len(e.TraceID) + len(e.Method) + len(e.Path) +
		min(len(e.Body), bodyCap+32) + len(e.Route) + len(e.Version) + len(e.ResponseCode)
}
