package diskqueue

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The scan at Open reads a segment through a window of scanWindow bytes.
// After an unreadable place (a bad length or checksum: zeros a power loss
// left, a bad block) it looks for the next record at every following byte
// offset, so that only the damaged bytes are lost, not the rest of the
// segment. A candidate needs a length that fits in the file and a CRC-32C
// over that length and payload, so bytes taken for a record by chance are
// rare (2^-32 a candidate). Zeros and record data cost almost nothing to
// search (a zero length fails on its checksum at once, text is too long to
// be a length); random bytes make about one candidate in 256 whose
// checksum is computed over up to MaxRecord bytes, so the search is
// bounded: past resyncBudget checksummed bytes for one place, the rest of
// the segment is given up (in a 16 MiB segment of random bytes, after
// about 4 KiB and 0.2 s).
const (
	scanWindow   = 1 << 20
	resyncBudget = 256 << 20
	tmpSuffix    = ".tmp"
)

// span is a run of whole, valid records in a segment file.
type span struct {
	start, end int64
	count      int
}

// scanned is what scanSegment found from where it started.
type scanned struct {
	size      int64
	badHeader bool
	runs      []span // the valid records, in runs split by unreadable places
	end       int64  // where the last valid record ends; where the scan started when none
	holes     int    // unreadable places with a valid record after them
}

func (s scanned) count() int {
	n := 0
	for _, r := range s.runs {
		n += r.count
	}
	return n
}

// segReader reads a segment file through a window.
type segReader struct {
	f     *os.File
	size  int64
	buf   []byte
	start int64 // the file offset of buf[0]
}

// at returns the window's bytes from off on, reading a new window (of
// need bytes at least, fewer only at the end of the file) when it holds
// fewer than need from off.
func (r *segReader) at(off int64, need int) ([]byte, error) {
	if off >= r.start && off+int64(need) <= r.start+int64(len(r.buf)) {
		return r.buf[off-r.start:], nil
	}
	n := int(min(int64(max(need, scanWindow)), max(r.size-off, 0)))
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	r.buf, r.start = r.buf[:n], off
	m, err := r.f.ReadAt(r.buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("diskqueue: %w", err)
	}
	r.buf = r.buf[:m]
	return r.buf, nil
}

// recordAt returns the size of the valid record at off, or 0.
func (r *segReader) recordAt(off int64) (int, error) {
	b, err := r.at(off, recordHeader)
	if err != nil || len(b) < recordHeader {
		return 0, err
	}
	n := int64(uint32le(b))
	if n > MaxRecord || off+recordHeader+n > r.size {
		return 0, nil
	}
	if b, err = r.at(off, recordHeader+int(n)); err != nil {
		return 0, err
	}
	if _, size, err := nextRecord(b); err == nil {
		return size, nil
	}
	return 0, nil
}

// resync returns the offset of the first valid record at or after off, or
// -1 when there is none (or the search ran out of budget).
func (r *segReader) resync(off int64, budget *int64) (int64, error) {
	emptyChecksum := recordChecksum(make([]byte, 4), nil)
	for off+recordHeader <= r.size {
		win, err := r.at(off, recordHeader)
		if err != nil || len(win) < recordHeader {
			return -1, err
		}
		next := off + int64(len(win)) - recordHeader + 1
		for i := 0; i+recordHeader <= len(win); i++ {
			n := int64(uint32le(win[i:]))
			at := off + int64(i)
			if n > MaxRecord || at+recordHeader+n > r.size || (n == 0 && uint32le(win[i+4:]) != emptyChecksum) {
				continue
			}
			if *budget -= n; *budget < 0 {
				return -1, nil
			}
			if int64(i)+recordHeader+n <= int64(len(win)) {
				if _, _, err := nextRecord(win[i:]); err == nil {
					return at, nil
				}
				continue
			}
			size, err := r.recordAt(at) // moves the window
			if err != nil || size > 0 {
				return at, err
			}
			next = at + 1
			break
		}
		off = next
	}
	return -1, nil
}

// scanSegment finds the valid records of segment id from offset from on.
func (q *Queue) scanSegment(id uint64, from int64) (scanned, error) {
	f, err := os.Open(filepath.Join(q.dir, segmentName(id)))
	if err != nil {
		return scanned{}, fmt.Errorf("diskqueue: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return scanned{}, fmt.Errorf("diskqueue: %w", err)
	}
	r := &segReader{f: f, size: st.Size()}
	sc := scanned{size: r.size, end: min(from, r.size)}
	head, err := r.at(0, int(headerSize))
	if err != nil {
		return sc, err
	}
	sc.badHeader = len(head) < int(headerSize) || string(head[:headerSize]) != segmentMagic
	budget := int64(resyncBudget)
	off := from
	for off < r.size {
		size, err := r.recordAt(off)
		if err != nil {
			return sc, err
		}
		if size == 0 {
			next, err := r.resync(off+1, &budget)
			if err != nil {
				return sc, err
			}
			if next < 0 {
				break
			}
			sc.holes++
			budget = resyncBudget
			off = next
			continue
		}
		if k := len(sc.runs) - 1; k >= 0 && sc.runs[k].end == off {
			sc.runs[k].end += int64(size)
			sc.runs[k].count++
		} else {
			sc.runs = append(sc.runs, span{start: off, end: off + int64(size), count: 1})
		}
		off += int64(size)
		sc.end = off
	}
	return sc, nil
}

// copyRuns writes a new segment file beside segment id's (its name with
// tmpSuffix), synced, holding a header and runs; it returns its size.
func (q *Queue) copyRuns(id uint64, runs []span) (int64, error) {
	name := filepath.Join(q.dir, segmentName(id))
	src, err := os.Open(name)
	if err != nil {
		return 0, fmt.Errorf("diskqueue: %w", err)
	}
	defer src.Close()
	dst, err := os.OpenFile(name+tmpSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("diskqueue: %w", err)
	}
	defer dst.Close()
	size := headerSize
	if _, err := dst.Write([]byte(segmentMagic)); err != nil {
		return 0, fmt.Errorf("diskqueue: %w", err)
	}
	for _, r := range runs {
		if _, err := io.Copy(dst, io.NewSectionReader(src, r.start, r.end-r.start)); err != nil {
			return 0, fmt.Errorf("diskqueue: %w", err)
		}
		size += r.end - r.start
	}
	if err := dst.Sync(); err != nil {
		return 0, fmt.Errorf("diskqueue: %w", err)
	}
	return size, nil
}
