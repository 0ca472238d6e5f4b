package diskqueue

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// placed is a record as written: its segment and bytes.
type placed struct {
	seg        uint64
	start, end int64
	payload    string
}

// damageLayout is what the crash-consistency checks run on: 40 records of
// 19 bytes in segments of 200 (ten in each of four), the first acked
// acknowledged, the queue closed.
func damageLayout(t testing.TB, acked int) (Options, []placed) {
	dir := filepath.Join(t.TempDir(), "q")
	opts := Options{Dir: dir, MaxBytes: 1 << 20, SegmentBytes: 200, Sync: SyncNever}
	q, _, err := Open(opts)
	require.NoError(t, err)
	_, err = q.Append(payloads(0, 40))
	require.NoError(t, err)
	if acked > 0 {
		b, err := q.Read(acked, 1<<20, func([]byte) {})
		require.NoError(t, err)
		require.NoError(t, q.Ack(b))
	}
	require.NoError(t, q.Close())
	var recs []placed
	for id := uint64(1); id <= 4; id++ {
		b, err := os.ReadFile(filepath.Join(dir, segmentName(id)))
		if os.IsNotExist(err) {
			recs = append(recs, make([]placed, 10)...) // acknowledged and removed
			continue
		}
		require.NoError(t, err)
		for off := headerSize; off < int64(len(b)); {
			p, size, err := nextRecord(b[off:])
			require.NoError(t, err)
			recs = append(recs, placed{seg: id, start: off, end: off + int64(size), payload: string(p)})
			off += int64(size)
		}
	}
	require.Len(t, recs, 40)
	return opts, recs
}

// damage overwrites bytes [lo, hi) of segment id (clipped to the file)
// with fill's bytes and returns the offsets whose value changed.
func damage(t testing.TB, opts Options, id uint64, lo, hi int64, fill func([]byte)) map[int64]bool {
	name := filepath.Join(opts.Dir, segmentName(id))
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	lo, hi = min(lo, int64(len(b))), min(hi, int64(len(b)))
	was := append([]byte(nil), b[lo:hi]...)
	fill(b[lo:hi])
	changed := map[int64]bool{}
	for i := range was {
		if was[i] != b[lo+int64(i)] {
			changed[lo+int64(i)] = true
		}
	}
	require.NoError(t, os.WriteFile(name, b, 0o600))
	return changed
}

// expectAfterDamage is what Open must find after the changed bytes of
// segment id: every record not acknowledged whose bytes are untouched, and
// exact counts.
func expectAfterDamage(recs []placed, acked int, id uint64, changed map[int64]bool, size int64) ([]string, Recovery) {
	var want []string
	var rec Recovery
	var lost []placed
	survivorAfter := false
	for i, r := range recs {
		hit := false
		for off := r.start; r.seg == id && off < r.end; off++ {
			hit = hit || changed[off]
		}
		switch {
		case i < acked:
		case hit:
			lost = append(lost, r)
		default:
			want = append(want, r.payload)
			survivorAfter = survivorAfter || (r.seg == id && len(lost) > 0)
		}
	}
	headerHit := false
	for off := range headerSize {
		headerHit = headerHit || changed[off]
	}
	switch {
	case len(lost) > 0 && survivorAfter:
		rec.Corrupt, rec.Repaired = 1, 1
	case len(lost) > 0 && id == 4:
		rec.TornBytes = size - lost[0].start
	case len(lost) > 0:
		rec.Corrupt = 1
	}
	if headerHit {
		rec.Repaired = 1
	}
	rec.Records = len(want)
	return want, rec
}

// checkRecovered opens the damaged queue, reads it, and opens it again:
// the second Open finds nothing more to repair and the same records.
func checkRecovered(t *testing.T, opts Options, want []string, wantRec Recovery) {
	t.Helper()
	q, rec, err := Open(opts)
	require.NoError(t, err)
	got, _ := readAll(t, q, 7)
	assert.Equal(t, want, got, "every record outside the damaged bytes, in order")
	assert.Equal(t, wantRec, rec)
	assert.Equal(t, segmentBytes(t, opts.Dir), q.Bytes(), "what MaxBytes bounds is what is on disk")
	require.NoError(t, q.Close())

	q, rec, err = Open(opts)
	require.NoError(t, err)
	defer q.Close()
	assert.Equal(t, Recovery{Records: len(want)}, rec, "repaired once, counted once")
	again, batches := readAll(t, q, 100)
	assert.Equal(t, want, again)
	for _, b := range batches {
		require.NoError(t, q.Ack(b))
	}
	_, err = q.Append([][]byte{[]byte("after")})
	require.NoError(t, err)
	more, _ := readAll(t, q, 5)
	assert.Equal(t, []string{"after"}, more)
}

func segmentBytes(t *testing.T, dir string) int64 {
	names, err := filepath.Glob(filepath.Join(dir, "*"+segSuffix))
	require.NoError(t, err)
	var n int64
	for _, name := range names {
		fi, err := os.Stat(name)
		require.NoError(t, err)
		n += fi.Size()
	}
	return n
}

func zeros(b []byte) { clear(b) }

func garbage(seed uint64) func([]byte) {
	return func(b []byte) {
		r := rand.New(rand.NewChaCha8([32]byte{byte(seed)}))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	}
}

// TestDamageLosesOnlyTheDamagedBytes damages each segment in turn (its
// header, its middle, its tail, all of it; with zeros, as a power loss
// leaves, and with random bytes, as a bad block does), with the cursor
// three records into the first: Open must bring back every record not
// acknowledged outside the damaged bytes, count exactly what it found,
// and leave files the next Open finds clean.
func TestDamageLosesOnlyTheDamagedBytes(t *testing.T) {
	t.Parallel()
	places := []struct {
		name   string
		lo, hi int64
	}{
		{"header", 0, headerSize},
		{"header and first record", 2, headerSize + 5},
		{"middle", 90, 110},
		{"one byte", 135, 136},
		{"tail", 185, 200},
		{"whole", 0, 200},
	}
	fills := map[string]func([]byte){"zeros": zeros, "garbage": garbage(7)}
	const acked = 3
	for id := uint64(1); id <= 4; id++ {
		for _, p := range places {
			for fname, fill := range fills {
				t.Run(fmt.Sprintf("segment %d %s %s", id, p.name, fname), func(t *testing.T) {
					t.Parallel()
					opts, recs := damageLayout(t, acked)
					changed := damage(t, opts, id, p.lo, p.hi, fill)
					require.NotEmpty(t, changed)
					fi, err := os.Stat(filepath.Join(opts.Dir, segmentName(id)))
					require.NoError(t, err)
					want, rec := expectAfterDamage(recs, acked, id, changed, fi.Size())
					checkRecovered(t, opts, want, rec)
				})
			}
		}
	}
}

// TestDamagedSegmentKeepsTheCursor is the case a damaged later segment
// used to break: the cursor's own, healthy segment was read from its
// header and its records were lost.
func TestDamagedSegmentKeepsTheCursor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		id   uint64
		hi   int64
	}{
		{"segment 2's header overwritten", 2, headerSize},
		{"last segment zero-filled", 4, 1 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts, recs := damageLayout(t, 3)
			damage(t, opts, tc.id, 0, tc.hi, zeros)
			q, rec := open(t, opts)
			got, _ := readAll(t, q, 100)
			assert.Subset(t, got, []string{recs[3].payload, recs[9].payload}, "records 3-9 of segment 1")
			assert.Equal(t, rec.Records, len(got))
			assert.Zero(t, q.TakeCorrupt())
		})
	}
}

// TestCursorInsideTheHeader: a cursor pointing into a segment's header
// (an earlier release wrote one after a damaged segment) reads from the
// segment's first record instead of taking the header for a record and
// dropping the segment.
func TestCursorInsideTheHeader(t *testing.T) {
	t.Parallel()
	opts, recs := damageLayout(t, 3)
	require.NoError(t, os.WriteFile(filepath.Join(opts.Dir, "cursor"), encodeCursor(pos{seg: 1, off: 0}), 0o600))
	q, rec := open(t, opts)
	assert.Equal(t, Recovery{Records: 40}, rec)
	got, _ := readAll(t, q, 100)
	assert.Equal(t, recs[0].payload, got[0])
	assert.Len(t, got, 40)
}

// TestInterruptedRewrite: a rewrite a crash cut short leaves its new file
// beside the segment, which is still whole; Open removes it.
func TestInterruptedRewrite(t *testing.T) {
	t.Parallel()
	opts, _ := damageLayout(t, 0)
	tmp := filepath.Join(opts.Dir, segmentName(2)+tmpSuffix)
	require.NoError(t, os.WriteFile(tmp, []byte(segmentMagic+"half a rec"), 0o600))
	q, rec := open(t, opts)
	assert.Equal(t, Recovery{Records: 40}, rec)
	assert.NoFileExists(t, tmp)
	got, _ := readAll(t, q, 100)
	assert.Equal(t, strs(payloads(0, 40)), got)
}

// TestResyncBudget: random bytes make candidates whose checksum must be
// computed; past the budget the search gives up rather than read on.
func TestResyncBudget(t *testing.T) {
	t.Parallel()
	b := make([]byte, 64<<10)
	garbage(3)(b)
	for i := range b {
		if i%4 == 3 {
			b[i] = 0 // lengths of at most 16 MiB: many candidates
		}
	}
	b = append(b, appendRecord(nil, []byte("found"))...)
	name := filepath.Join(t.TempDir(), "seg")
	require.NoError(t, os.WriteFile(name, b, 0o600))
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	for _, tc := range []struct {
		budget int64
		want   int64
	}{{1 << 40, 64 << 10}, {1 << 10, -1}} {
		r := &segReader{f: f, size: int64(len(b))}
		budget := tc.budget
		at, err := r.resync(0, &budget)
		require.NoError(t, err)
		assert.Equal(t, tc.want, at)
	}
}

// FuzzDamage: the crash-consistency check for any damage: bytes of one
// segment replaced (zeros, random bytes or each byte XORed), with any
// number of records acknowledged before.
func FuzzDamage(f *testing.F) {
	f.Add(uint8(3), uint8(1), uint16(90), uint16(20), uint8(0), uint64(1))
	f.Add(uint8(0), uint8(4), uint16(0), uint16(500), uint8(0), uint64(1))
	f.Add(uint8(12), uint8(2), uint16(0), uint16(8), uint8(1), uint64(9))
	f.Add(uint8(5), uint8(3), uint16(27), uint16(3), uint8(0x82), uint64(2))
	f.Add(uint8(39), uint8(4), uint16(190), uint16(10), uint8(1), uint64(5))
	f.Fuzz(func(t *testing.T, acked, seg uint8, at, n uint16, mode uint8, seed uint64) {
		acked %= 41
		id := uint64(seg%4) + 1
		opts, recs := damageLayout(t, int(acked))
		if _, err := os.Stat(filepath.Join(opts.Dir, segmentName(id))); err != nil {
			return // acknowledged and removed
		}
		fill := zeros
		switch {
		case mode == 1:
			fill = garbage(seed)
		case mode > 1:
			fill = func(b []byte) {
				for i := range b {
					b[i] ^= mode
				}
			}
		}
		lo := int64(at % 256)
		changed := damage(t, opts, id, lo, lo+int64(n), fill)
		fi, err := os.Stat(filepath.Join(opts.Dir, segmentName(id)))
		require.NoError(t, err)
		want, rec := expectAfterDamage(recs, int(acked), id, changed, fi.Size())
		checkRecovered(t, opts, want, rec)
	})
}
