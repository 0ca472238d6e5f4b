package diskqueue

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzRecover writes records across segments, then cuts the last segment
// anywhere and appends arbitrary bytes (a torn write, or garbage), and
// damages one byte of an earlier segment. Open must succeed, and reading
// must return only records that were written, in the order written, with
// nothing read twice; appending afterwards must work.
func FuzzRecover(f *testing.F) {
	f.Add(uint16(0), []byte{}, uint16(0), byte(0))
	f.Add(uint16(3), []byte{1, 2, 3}, uint16(40), byte(0xff))
	f.Add(uint16(9), []byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0}, uint16(8), byte(1))
	f.Add(uint16(200), []byte("RGLQseg1"), uint16(12), byte(0x80))
	f.Fuzz(func(t *testing.T, cut uint16, tail []byte, flipAt uint16, flip byte) {
		dir := t.TempDir()
		opts := Options{Dir: dir, MaxBytes: 1 << 20, SegmentBytes: 120, Sync: SyncNever}
		q, _, err := Open(opts)
		require.NoError(t, err)
		written := payloads(0, 12)
		_, err = q.Append(written)
		require.NoError(t, err)
		require.NoError(t, q.Close())

		ids, err := (&Queue{dir: dir}).listSegments()
		require.NoError(t, err)
		last := filepath.Join(dir, segmentName(ids[len(ids)-1]))
		b, err := os.ReadFile(last)
		require.NoError(t, err)
		b = append(b[:len(b)-min(int(cut), len(b))], tail...)
		require.NoError(t, os.WriteFile(last, b, 0o600))
		if len(ids) > 1 && flip != 0 {
			first := filepath.Join(dir, segmentName(ids[0]))
			fb, err := os.ReadFile(first)
			require.NoError(t, err)
			fb[int(flipAt)%len(fb)] ^= flip
			require.NoError(t, os.WriteFile(first, fb, 0o600))
		}

		q2, _, err := Open(opts)
		require.NoError(t, err)
		defer q2.Close()
		got, _ := readAll(t, q2, 5)
		assertSubsequence(t, strs(written), got)
		_, err = q2.Append([][]byte{[]byte("after")})
		require.NoError(t, err)
		more, _ := readAll(t, q2, 5)
		assert.Equal(t, []string{"after"}, more)
	})
}

// assertSubsequence checks got holds elements of want, in want's order,
// none twice.
func assertSubsequence(t *testing.T, want, got []string) {
	t.Helper()
	i := 0
	for _, g := range got {
		for i < len(want) && want[i] != g {
			i++
		}
		require.Less(t, i, len(want), "read %q, which was not written (or not in order)", g)
		i++
	}
}

// FuzzNextRecord: any bytes parse as a record, a short read or a corrupt
// record, never a panic, and a record's size is within the input.
func FuzzNextRecord(f *testing.F) {
	f.Add(appendRecord(nil, []byte("hello")))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, size, err := nextRecord(b)
		if err != nil {
			return
		}
		require.LessOrEqual(t, size, len(b))
		assert.Equal(t, appendRecord(nil, p), b[:size])
	})
}

// FuzzCursor: decodeCursor never panics and reads back what encodeCursor
// wrote.
func FuzzCursor(f *testing.F) {
	f.Add(uint64(1), int64(8), []byte{})
	f.Add(uint64(1<<40), int64(1<<30), []byte("RGLQ"))
	f.Fuzz(func(t *testing.T, seg uint64, off int64, junk []byte) {
		_, _ = decodeCursor(junk)
		if off < 0 || off > 1<<62 {
			return
		}
		p, ok := decodeCursor(encodeCursor(pos{seg: seg, off: off}))
		require.True(t, ok)
		assert.Equal(t, pos{seg: seg, off: off}, p)
	})
}

// TestZerosAreNoRecord: blocks of zeros, which a file system may leave where
// a crash cut a write, are not an empty record.
func TestZerosAreNoRecord(t *testing.T) {
	t.Parallel()
	_, _, err := nextRecord(make([]byte, 64))
	assert.ErrorIs(t, err, errCorrupt)
	p, size, err := nextRecord(appendRecord(nil, nil))
	require.NoError(t, err, "an empty payload written is still read")
	assert.Empty(t, p)
	assert.Equal(t, recordHeader, size)
}
