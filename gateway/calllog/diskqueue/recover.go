package diskqueue

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// recover finds the segments, the cursor and the records after it; it cuts
// a torn end off the last segment and skips what cannot be read.
func (q *Queue) recover() (Recovery, error) {
	var rec Recovery
	ids, err := q.listSegments()
	if err != nil {
		return rec, err
	}
	raw, err := os.ReadFile(filepath.Join(q.dir, "cursor"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return rec, fmt.Errorf("diskqueue: %w", err)
	}
	cur, ok := decodeCursor(raw)
	commit := pos{seg: 1, off: headerSize}
	switch {
	case len(ids) == 0 && ok:
		commit = pos{seg: cur.seg + 1, off: headerSize}
	case len(ids) == 0:
	case ok && slices.Contains(ids, cur.seg):
		commit = cur
	case ok && cur.seg < ids[len(ids)-1]:
		// The cursor's segment was removed: start at the next one.
		i, _ := slices.BinarySearch(ids, cur.seg)
		commit = pos{seg: ids[i], off: headerSize}
	default:
		commit = pos{seg: ids[0], off: headerSize}
	}
	for len(ids) > 0 && ids[0] < commit.seg {
		_ = os.Remove(filepath.Join(q.dir, segmentName(ids[0])))
		ids = ids[1:]
	}
	for i, id := range ids {
		last := i == len(ids)-1
		from := headerSize
		if id == commit.seg {
			from = commit.off
		}
		seg, size, err := q.scanSegment(id, from)
		if err != nil {
			return rec, err
		}
		if seg.end < from {
			// The cursor pointed past what the segment holds.
			commit.off = seg.end
		}
		if seg.end < headerSize {
			// A bad header: nothing in it can be read.
			rec.Corrupt++
			if last {
				if err := os.WriteFile(filepath.Join(q.dir, segmentName(id)), []byte(segmentMagic), 0o600); err != nil {
					return rec, fmt.Errorf("diskqueue: %w", err)
				}
				seg.end, size = headerSize, headerSize
			}
		}
		if seg.end < size {
			if last {
				if err := os.Truncate(filepath.Join(q.dir, segmentName(id)), seg.end); err != nil {
					return rec, fmt.Errorf("diskqueue: %w", err)
				}
				rec.TornBytes += size - seg.end
			} else {
				rec.Corrupt++
			}
		}
		rec.Records += seg.count
		q.segs = append(q.segs, seg)
		q.bytes += seg.end
	}
	if len(q.segs) == 0 {
		f, err := q.createSegment(commit.seg)
		if err != nil {
			return rec, err
		}
		q.w = f
		q.segs = []segment{{id: commit.seg, end: headerSize}}
		q.bytes = headerSize
	} else {
		last := q.segs[len(q.segs)-1]
		f, err := os.OpenFile(filepath.Join(q.dir, segmentName(last.id)), os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return rec, fmt.Errorf("diskqueue: %w", err)
		}
		q.w = f
	}
	if commit.seg < q.segs[0].id {
		commit = pos{seg: q.segs[0].id, off: headerSize}
	}
	cursor, err := os.OpenFile(filepath.Join(q.dir, "cursor"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return rec, fmt.Errorf("diskqueue: %w", err)
	}
	q.cursor = cursor
	if _, err := cursor.WriteAt(encodeCursor(commit), 0); err != nil {
		return rec, fmt.Errorf("diskqueue: %w", err)
	}
	if err := cursor.Sync(); err != nil {
		return rec, fmt.Errorf("diskqueue: %w", err)
	}
	q.commit, q.read = commit, commit
	q.waiting, q.unacked = rec.Records, rec.Records
	return rec, nil
}

// listSegments returns the segment numbers in the directory, in order.
func (q *Queue) listSegments() ([]uint64, error) {
	entries, err := os.ReadDir(q.dir)
	if err != nil {
		return nil, fmt.Errorf("diskqueue: %w", err)
	}
	var ids []uint64
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), segSuffix)
		if !ok || e.IsDir() {
			continue
		}
		id, err := strconv.ParseUint(name, 10, 64)
		if err != nil || id == 0 {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// scanSegment counts the valid records of segment id from offset from on
// and returns where they end and the file's size. A segment with a bad
// header, or one cut short inside it, holds no record.
func (q *Queue) scanSegment(id uint64, from int64) (segment, int64, error) {
	seg := segment{id: id, end: headerSize}
	f, err := os.Open(filepath.Join(q.dir, segmentName(id)))
	if err != nil {
		return seg, 0, fmt.Errorf("diskqueue: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return seg, 0, fmt.Errorf("diskqueue: %w", err)
	}
	size := st.Size()
	var head [headerSize]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || string(head[:]) != segmentMagic {
		if size < headerSize {
			// Torn while it was created: rewrite the header.
			if err := os.WriteFile(f.Name(), []byte(segmentMagic), 0o600); err != nil {
				return seg, 0, fmt.Errorf("diskqueue: %w", err)
			}
			return seg, headerSize, nil
		}
		seg.end = 0
		return seg, size, nil
	}
	if from > size {
		seg.end = size
		return seg, size, nil
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return seg, 0, fmt.Errorf("diskqueue: %w", err)
	}
	seg.end = from
	br := bufio.NewReaderSize(f, 1<<20)
	var buf []byte
	for {
		hdr, err := br.Peek(recordHeader)
		if err != nil {
			break
		}
		n := int(uint32le(hdr))
		if n > MaxRecord {
			break
		}
		total := recordHeader + n
		if cap(buf) < total {
			buf = make([]byte, total)
		}
		buf = buf[:total]
		if _, err := io.ReadFull(br, buf); err != nil {
			break
		}
		if _, _, err := nextRecord(buf); err != nil {
			break
		}
		seg.end += int64(total)
		seg.count++
	}
	return seg, size, nil
}
