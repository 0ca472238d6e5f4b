package diskqueue

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// recover finds the segments, the cursor and the records after it, and
// leaves every segment holding only valid records: it cuts a torn end off
// the last one and takes out what cannot be read (recoverSegment).
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
	// A cursor inside the header, which an earlier release could write
	// after a damaged segment, means the segment's first record.
	commit.off = max(commit.off, headerSize)
	for len(ids) > 0 && ids[0] < commit.seg {
		_ = os.Remove(filepath.Join(q.dir, segmentName(ids[0])))
		ids = ids[1:]
	}
	cursor, err := os.OpenFile(filepath.Join(q.dir, "cursor"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return rec, fmt.Errorf("diskqueue: %w", err)
	}
	q.cursor = cursor
	for i, id := range ids {
		from := headerSize
		if id == commit.seg {
			from = commit.off
		}
		seg, start, err := q.recoverSegment(id, from, i == len(ids)-1, id == commit.seg, &rec)
		if err != nil {
			return rec, err
		}
		if id == commit.seg {
			// Only the cursor's own segment moves it: where reading
			// starts in any other says nothing of the cursor.
			commit.off = start
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
	if err := q.writeCursor(commit); err != nil {
		return rec, err
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
		if strings.HasSuffix(e.Name(), segSuffix+tmpSuffix) {
			// A rewrite a crash interrupted: the segment is whole.
			_ = os.Remove(filepath.Join(q.dir, e.Name()))
			continue
		}
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

// recoverSegment makes segment id hold only valid records and returns it
// with the offset reading starts at in it (from, unless the file is
// shorter or was rewritten). An unreadable tail is cut off (TornBytes for
// the last segment, which was being written; Corrupt for another); a bad
// header alone is rewritten in place; unreadable places with records
// after them (Corrupt, each) make a new file of the records, which
// replaces the segment.
func (q *Queue) recoverSegment(id uint64, from int64, last, holdsCursor bool, rec *Recovery) (segment, int64, error) {
	sc, err := q.scanSegment(id, from)
	if err != nil {
		return segment{}, 0, err
	}
	name := filepath.Join(q.dir, segmentName(id))
	if sc.size < headerSize {
		// Torn while it was created: rewrite the header.
		if err := os.WriteFile(name, []byte(segmentMagic), 0o600); err != nil {
			return segment{}, 0, fmt.Errorf("diskqueue: %w", err)
		}
		return segment{id: id, end: headerSize}, headerSize, nil
	}
	seg := segment{id: id, end: sc.end, count: sc.count()}
	// A cursor past the file's end: what the file holds was acknowledged
	// (a power loss kept the cursor and not the segment's last writes).
	start := min(from, sc.size)
	if tail := sc.size - sc.end; tail > 0 && last {
		rec.TornBytes += tail
	} else if tail > 0 {
		rec.Corrupt++
	}
	if sc.holes > 0 {
		rec.Corrupt += sc.holes
		rec.Repaired++
		size, err := q.copyRuns(id, sc.runs)
		if err != nil {
			return segment{}, 0, err
		}
		if holdsCursor && start > headerSize {
			// Durable before the new file replaces the old one: a crash in
			// between reads the old one from its start (acknowledged
			// records come again, none is lost).
			if err := q.writeCursor(pos{seg: id, off: headerSize}); err != nil {
				return segment{}, 0, err
			}
		}
		if err := os.Rename(name+tmpSuffix, name); err != nil {
			return segment{}, 0, fmt.Errorf("diskqueue: %w", err)
		}
		_ = syncDir(q.dir)
		seg.end = size
		return seg, headerSize, nil
	}
	if sc.badHeader {
		rec.Repaired++
		if err := writeAt(name, []byte(segmentMagic), 0); err != nil {
			return segment{}, 0, err
		}
	}
	if sc.end < sc.size {
		if err := os.Truncate(name, sc.end); err != nil {
			return segment{}, 0, fmt.Errorf("diskqueue: %w", err)
		}
	}
	return seg, start, nil
}

// writeCursor writes the cursor at p and syncs it.
func (q *Queue) writeCursor(p pos) error {
	if _, err := q.cursor.WriteAt(encodeCursor(p), 0); err != nil {
		return fmt.Errorf("diskqueue: %w", err)
	}
	if err := q.cursor.Sync(); err != nil {
		return fmt.Errorf("diskqueue: %w", err)
	}
	return nil
}

func writeAt(name string, b []byte, off int64) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("diskqueue: %w", err)
	}
	_, err = f.WriteAt(b, off)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("diskqueue: %w", err)
	}
	return nil
}
