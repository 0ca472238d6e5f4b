package diskqueue

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Read hands the oldest unread records, up to limit of them and about
// maxBytes (one at least), to fn in order, and returns them as a Batch to
// acknowledge. A payload is valid only during its fn call. An empty Batch
// means nothing is waiting.
func (q *Queue) Read(limit, maxBytes int, fn func(payload []byte)) (Batch, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return Batch{}, ErrClosed
	}
	q.nextSegmentIfDone()
	b := Batch{start: q.read}
	var used int64
	for b.n < limit && q.waiting > 0 && (b.n == 0 || used < int64(maxBytes)) {
		seg := q.segment(q.read.seg)
		if q.read.off >= seg.end {
			if seg.id == q.segs[len(q.segs)-1].id {
				break
			}
			q.read, q.readN = pos{seg: q.nextID(seg.id), off: headerSize}, 0
			continue
		}
		if err := q.openRead(); err != nil {
			return Batch{}, err
		}
		want := min(seg.end-q.read.off, max(int64(maxBytes)-used, recordHeader))
		before := q.read.off
		n, err := q.readChunk(seg, want, limit-b.n, fn)
		if err != nil {
			return Batch{}, err
		}
		b.n += n
		used += q.read.off - before
	}
	b.end = q.read
	if b.n == 0 {
		if len(q.inflight) == 0 {
			_ = q.moveCommit(q.read)
		}
		return Batch{}, nil
	}
	q.inflight = append(q.inflight, flight{start: b.start, end: b.end, n: b.n})
	return b, nil
}

// readChunk reads up to want bytes of seg at the read position and hands
// out up to max whole records from them. A record longer than want is read
// whole. A corrupt record skips the rest of the segment.
func (q *Queue) readChunk(seg *segment, want int64, limit int, fn func([]byte)) (int, error) {
	if int64(cap(q.rbuf)) < want {
		q.rbuf = make([]byte, want)
	}
	buf := q.rbuf[:want]
	if _, err := q.r.ReadAt(buf, q.read.off); err != nil {
		return 0, fmt.Errorf("diskqueue: %w", err)
	}
	n := 0
	for n < limit {
		payload, size, err := nextRecord(buf)
		if errors.Is(err, errShort) && n == 0 && len(buf) >= recordHeader {
			// One record larger than the chunk: read it whole.
			whole := recordSize(int(uint32le(buf)))
			if whole <= seg.end-q.read.off {
				if int64(cap(q.rbuf)) < whole {
					q.rbuf = make([]byte, whole)
				}
				buf = q.rbuf[:whole]
				if _, err := q.r.ReadAt(buf, q.read.off); err != nil {
					return 0, fmt.Errorf("diskqueue: %w", err)
				}
				continue
			}
			err = errCorrupt
		}
		if errors.Is(err, errShort) {
			if n == 0 && len(buf) < recordHeader && q.read.off+int64(len(buf)) >= seg.end {
				err = errCorrupt // the segment ends inside a record header
			} else {
				break
			}
		}
		if err != nil {
			q.skipSegment(seg)
			return n, nil
		}
		fn(payload)
		n++
		buf = buf[size:]
		q.read.off += int64(size)
		q.readN++
		q.waiting--
	}
	return n, nil
}

func uint32le(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// skipSegment gives up the rest of the read segment after a corrupt
// record: its records not read yet are counted gone.
func (q *Queue) skipSegment(seg *segment) {
	lost := max(seg.count-q.readN, 0)
	q.waiting -= lost
	q.unacked -= lost
	q.readN = seg.count
	q.read.off = seg.end
	q.corrupt++
}

// TakeCorrupt returns how many corrupt places reading met since the last
// call (each lost one record at least).
func (q *Queue) TakeCorrupt() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.corrupt
	q.corrupt = 0
	return n
}

// nextSegmentIfDone moves reading to the next segment when the read one is
// finished and is not the one written.
func (q *Queue) nextSegmentIfDone() {
	for {
		seg := q.segment(q.read.seg)
		last := q.segs[len(q.segs)-1].id
		if seg == nil {
			q.read = pos{seg: q.segs[0].id, off: headerSize}
			q.readN = 0
			continue
		}
		if q.read.off < seg.end || seg.id == last {
			return
		}
		q.read = pos{seg: q.nextID(seg.id), off: headerSize}
		q.readN = 0
		if len(q.inflight) == 0 {
			_ = q.moveCommit(q.read)
		}
	}
}

func (q *Queue) nextID(id uint64) uint64 {
	for _, s := range q.segs {
		if s.id > id {
			return s.id
		}
	}
	return id
}

func (q *Queue) segment(id uint64) *segment {
	for i := range q.segs {
		if q.segs[i].id == id {
			return &q.segs[i]
		}
	}
	return nil
}

func (q *Queue) openRead() error {
	if q.r != nil && q.rID == q.read.seg {
		return nil
	}
	if q.r != nil {
		_ = q.r.Close()
		q.r = nil
	}
	f, err := os.Open(filepath.Join(q.dir, segmentName(q.read.seg)))
	if err != nil {
		return fmt.Errorf("diskqueue: %w", err)
	}
	q.r, q.rID = f, q.read.seg
	return nil
}
