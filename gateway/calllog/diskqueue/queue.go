// Package diskqueue is a bounded first-in first-out queue of byte records
// kept in segment files, which survives a crash of the process (and, with
// SyncAlways, of the machine): records are appended, read in order, and
// acknowledged; what was not acknowledged is read again after a restart.
//
// Several readers may hold batches at once and acknowledge them in any
// order; the position everything before which was acknowledged (the
// cursor) is what survives. So delivery is at least once: after a crash,
// records acknowledged out of order, or not yet synced, are read again.
//
// It is the call log's on-disk queue (gateway/calllog), kept free of what a
// record means. A Queue is safe for concurrent use; only one process may
// open a directory at a time.
package diskqueue

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Sync says when written data is forced to stable storage (fsync).
type Sync string

// The sync policies. A process killed (kill -9, a crash, the OOM killer)
// loses nothing under any of them: written data is in the kernel. They
// differ when the machine itself stops (power, kernel panic).
const (
	// SyncAlways syncs every Append before it returns and every cursor
	// move: nothing appended is lost, at the cost of one fsync per Append.
	SyncAlways Sync = "always"
	// SyncInterval syncs at most every Options.SyncInterval (MaybeSync),
	// at every segment change and at Close: a machine crash loses at most
	// that interval of records, and may deliver that interval again.
	SyncInterval Sync = "interval"
	// SyncNever leaves syncing to the kernel (Close still syncs).
	SyncNever Sync = "never"
)

// Options configure a Queue.
type Options struct {
	// Dir holds the queue's files; it is created (0700) when missing.
	Dir string
	// MaxBytes bounds the segment files' total size; an Append past it is
	// refused. It includes up to one segment of acknowledged records not
	// yet removed. Required.
	MaxBytes int64
	// SegmentBytes is the size at which a new segment is started. Zero
	// means MaxBytes/16, at least 64 KiB and at most 64 MiB.
	SegmentBytes int64
	// Sync is the sync policy; empty means SyncInterval.
	Sync Sync
	// SyncInterval is SyncInterval's period; zero means one second.
	SyncInterval time.Duration
}

// Recovery tells what Open found. Open leaves every segment holding only
// valid records, so what it counts is not found again at the next Open.
type Recovery struct {
	// Records is how many records wait from before: exactly those Read
	// will hand out.
	Records int
	// TornBytes is how much was cut off the end of the last segment: a
	// record the process was writing when it stopped, or what a power
	// loss left unwritten (zeros) with SyncNever or SyncInterval.
	TornBytes int64
	// Corrupt counts unreadable places (a bad length or checksum) after
	// the cursor, taken out of their segments; the records around them
	// are kept. Each lost one record at least; how many is unknown.
	Corrupt int
	// Repaired counts the segments rewritten: a bad header (which alone
	// loses no record), or corrupt places with records after them.
	Repaired int
}

// Batch is a run of records handed out by Read. Ack it once they are
// delivered or given up; until then a restart reads them again.
type Batch struct {
	start, end pos
	n          int
}

// Len is how many records the batch holds.
func (b Batch) Len() int { return b.n }

// ErrClosed is returned by operations on a closed Queue.
var ErrClosed = errors.New("diskqueue: closed")

type segment struct {
	id    uint64
	end   int64 // bytes that hold valid records: the file's size
	count int   // records from where reading starts in it to end
}

type flight struct {
	start, end pos
	n          int
	acked      bool
}

// Queue is an open queue directory.
type Queue struct {
	opts Options
	dir  string

	mu       sync.Mutex
	lock     *os.File
	cursor   *os.File
	segs     []segment // oldest first; the last is written
	w        *os.File  // the last segment, for appending
	r        *os.File  // the segment being read
	rID      uint64
	read     pos
	readN    int // records read from the read segment
	commit   pos
	inflight []flight
	bytes    int64
	waiting  int // records after read
	unacked  int // records after commit not acknowledged
	corrupt  int // corrupt places met by Read, not yet reported
	dirtyW   bool
	dirtyC   bool
	lastSync time.Time
	rbuf     []byte
	wbuf     []byte
	closed   bool
}

// Open opens (or creates) the queue in opts.Dir, cuts off a torn last
// record, and positions reading after what was acknowledged.
func Open(opts Options) (*Queue, Recovery, error) {
	if opts.Dir == "" || opts.MaxBytes <= 0 {
		return nil, Recovery{}, errors.New("diskqueue: Dir and a positive MaxBytes are required")
	}
	switch opts.Sync {
	case "":
		opts.Sync = SyncInterval
	case SyncAlways, SyncInterval, SyncNever:
	default:
		return nil, Recovery{}, fmt.Errorf("diskqueue: sync %q: want always, interval or never", opts.Sync)
	}
	if opts.SyncInterval <= 0 {
		opts.SyncInterval = time.Second
	}
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = min(max(opts.MaxBytes/16, 64<<10), 64<<20)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, Recovery{}, fmt.Errorf("diskqueue: %w", err)
	}
	q := &Queue{opts: opts, dir: opts.Dir, lastSync: time.Now()}
	lock, err := lockDir(filepath.Join(opts.Dir, "lock"))
	if err != nil {
		return nil, Recovery{}, err
	}
	q.lock = lock
	rec, err := q.recover()
	if err != nil {
		q.closeFiles()
		return nil, Recovery{}, err
	}
	return q, rec, nil
}

// Append writes payloads as records in order and returns how many it
// took: it stops at the first that would pass MaxBytes (the rest are
// refused, not written) or that is larger than MaxRecord. With SyncAlways
// they are synced before it returns. An error means the write failed; the
// records it did not count were not kept.
func (q *Queue) Append(payloads [][]byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return 0, ErrClosed
	}
	taken := 0
	q.wbuf = q.wbuf[:0]
	pending := 0
	for _, p := range payloads {
		size := recordSize(len(p))
		if len(p) > MaxRecord || q.bytes+int64(len(q.wbuf))+size > q.opts.MaxBytes {
			break
		}
		last := &q.segs[len(q.segs)-1]
		if last.end+int64(len(q.wbuf)) > headerSize && last.end+int64(len(q.wbuf))+size > q.opts.SegmentBytes {
			if err := q.flushWrite(pending); err != nil {
				return taken - pending, err
			}
			pending = 0
			if err := q.rotate(); err != nil {
				return taken, err
			}
			if q.bytes+size > q.opts.MaxBytes {
				break
			}
		}
		q.wbuf = appendRecord(q.wbuf, p)
		pending++
		taken++
	}
	if err := q.flushWrite(pending); err != nil {
		return taken - pending, err
	}
	if q.opts.Sync == SyncAlways && taken > 0 {
		if err := q.w.Sync(); err != nil {
			return taken, fmt.Errorf("diskqueue: %w", err)
		}
		q.dirtyW = false
	}
	return taken, nil
}

// flushWrite writes wbuf (n records) to the last segment. On a failed
// write the segment is cut back, so no partial record stays.
func (q *Queue) flushWrite(n int) error {
	if len(q.wbuf) == 0 {
		return nil
	}
	last := &q.segs[len(q.segs)-1]
	if _, err := q.w.Write(q.wbuf); err != nil {
		_ = q.w.Truncate(last.end)
		q.wbuf = q.wbuf[:0]
		return fmt.Errorf("diskqueue: %w", err)
	}
	last.end += int64(len(q.wbuf))
	last.count += n
	q.bytes += int64(len(q.wbuf))
	q.waiting += n
	q.unacked += n
	q.dirtyW = true
	q.wbuf = q.wbuf[:0]
	return nil
}

// rotate starts a new segment after syncing the current one (unless the
// policy is never).
func (q *Queue) rotate() error {
	if q.opts.Sync != SyncNever {
		if err := q.w.Sync(); err != nil {
			return fmt.Errorf("diskqueue: %w", err)
		}
		q.dirtyW = false
	}
	id := q.segs[len(q.segs)-1].id + 1
	f, err := q.createSegment(id)
	if err != nil {
		return err
	}
	_ = q.w.Close()
	q.w = f
	q.segs = append(q.segs, segment{id: id, end: headerSize})
	q.bytes += headerSize
	return nil
}

func (q *Queue) createSegment(id uint64) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(q.dir, segmentName(id)), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("diskqueue: %w", err)
	}
	if _, err := f.Write([]byte(segmentMagic)); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("diskqueue: %w", err)
	}
	if q.opts.Sync != SyncNever {
		// Best effort: a segment whose creation is not yet durable is cut
		// back or rewritten at the next Open.
		if err := f.Sync(); err == nil {
			_ = syncDir(q.dir)
		}
	}
	return f, nil
}

// Ack marks b's records as done. Once every record before a position is
// done, the cursor moves there and wholly done segments are removed.
func (q *Queue) Ack(b Batch) error {
	if b.n == 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	for i := range q.inflight {
		if q.inflight[i].start == b.start && !q.inflight[i].acked {
			q.inflight[i].acked = true
			q.unacked -= b.n
			break
		}
	}
	for len(q.inflight) > 0 && q.inflight[0].acked {
		q.inflight = q.inflight[1:]
	}
	if len(q.inflight) > 0 {
		return q.moveCommit(q.inflight[0].start)
	}
	return q.moveCommit(q.read)
}

// moveCommit writes the cursor at p and removes the segments before it.
func (q *Queue) moveCommit(p pos) error {
	if p == q.commit || p.less(q.commit) {
		return nil
	}
	q.commit = p
	if _, err := q.cursor.WriteAt(encodeCursor(p), 0); err != nil {
		return fmt.Errorf("diskqueue: %w", err)
	}
	q.dirtyC = true
	if q.opts.Sync == SyncAlways {
		if err := q.cursor.Sync(); err != nil {
			return fmt.Errorf("diskqueue: %w", err)
		}
		q.dirtyC = false
	}
	for len(q.segs) > 1 && q.segs[0].id < p.seg {
		old := q.segs[0]
		q.segs = q.segs[1:]
		q.bytes -= old.end
		if q.r != nil && q.rID == old.id {
			_ = q.r.Close()
			q.r = nil
		}
		_ = os.Remove(filepath.Join(q.dir, segmentName(old.id)))
	}
	return nil
}

// Len is how many records were appended and not yet acknowledged, those
// handed out by Read included.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.unacked
}

// Waiting is how many records Read has not handed out yet.
func (q *Queue) Waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting
}

// Bytes is the segment files' total size.
func (q *Queue) Bytes() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}

// MaybeSync syncs when the policy is SyncInterval and its period passed
// since the last sync. Call it regularly.
func (q *Queue) MaybeSync(now time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.opts.Sync != SyncInterval || now.Sub(q.lastSync) < q.opts.SyncInterval {
		return nil
	}
	return q.syncLocked(now)
}

// Sync forces what was written to stable storage, whatever the policy.
func (q *Queue) Sync() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrClosed
	}
	return q.syncLocked(time.Now())
}

func (q *Queue) syncLocked(now time.Time) error {
	q.lastSync = now
	var errs []error
	if q.dirtyW {
		errs = append(errs, q.w.Sync())
		q.dirtyW = false
	}
	if q.dirtyC {
		errs = append(errs, q.cursor.Sync())
		q.dirtyC = false
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("diskqueue: %w", err)
	}
	return nil
}

// Close syncs and closes the queue. Records handed out and not
// acknowledged are read again by the next Open.
func (q *Queue) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return nil
	}
	err := q.syncLocked(time.Now())
	q.closed = true
	q.closeFiles()
	return err
}

func (q *Queue) closeFiles() {
	for _, f := range []*os.File{q.w, q.r, q.cursor, q.lock} {
		if f != nil {
			_ = f.Close()
		}
	}
	q.w, q.r, q.cursor, q.lock = nil, nil, nil, nil
}
