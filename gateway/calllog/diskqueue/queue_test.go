package diskqueue

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func open(t *testing.T, opts Options) (*Queue, Recovery) {
	t.Helper()
	q, rec, err := Open(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close() })
	return q, rec
}

func payloads(from, to int) [][]byte {
	var out [][]byte
	for i := from; i < to; i++ {
		out = append(out, fmt.Appendf(nil, "record %04d", i))
	}
	return out
}

// readAll reads batches of up to n records until nothing waits.
func readAll(t *testing.T, q *Queue, n int) ([]string, []Batch) {
	t.Helper()
	var got []string
	var batches []Batch
	for {
		b, err := q.Read(n, 1<<20, func(p []byte) { got = append(got, string(p)) })
		require.NoError(t, err)
		if b.Len() == 0 {
			return got, batches
		}
		batches = append(batches, b)
	}
}

func strs(ps [][]byte) []string {
	var out []string
	for _, p := range ps {
		out = append(out, string(p))
	}
	return out
}

func TestAppendReadAckAcrossSegments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q, rec := open(t, Options{Dir: dir, MaxBytes: 1 << 20, SegmentBytes: 200})
	assert.Equal(t, Recovery{}, rec)
	n, err := q.Append(payloads(0, 50))
	require.NoError(t, err)
	require.Equal(t, 50, n)
	assert.Equal(t, 50, q.Len())
	segs, _ := filepath.Glob(filepath.Join(dir, "*.seg"))
	assert.Greater(t, len(segs), 3, "small segments rotate")

	got, batches := readAll(t, q, 7)
	assert.Equal(t, strs(payloads(0, 50)), got, "in order, every record once")
	assert.Equal(t, 50, q.Len(), "read is not acknowledged")
	assert.Zero(t, q.Waiting())
	for _, b := range batches {
		require.NoError(t, q.Ack(b))
	}
	assert.Zero(t, q.Len())
	segs, _ = filepath.Glob(filepath.Join(dir, "*.seg"))
	assert.Len(t, segs, 1, "acknowledged segments are removed")
}

func TestRestartReadsWhatWasNotAcknowledged(t *testing.T) {
	t.Parallel()
	for _, sync := range []Sync{SyncAlways, SyncInterval, SyncNever} {
		t.Run(string(sync), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := Options{Dir: dir, MaxBytes: 1 << 20, SegmentBytes: 256, Sync: sync}
			q, _, err := Open(opts)
			require.NoError(t, err)
			_, err = q.Append(payloads(0, 30))
			require.NoError(t, err)
			var got []string
			b1, err := q.Read(10, 1<<20, func(p []byte) { got = append(got, string(p)) })
			require.NoError(t, err)
			b2, err := q.Read(10, 1<<20, func(p []byte) { got = append(got, string(p)) })
			require.NoError(t, err)
			_, err = q.Read(5, 1<<20, func([]byte) {})
			require.NoError(t, err)
			// Acknowledged out of order: only b1 moves the cursor... after b2.
			require.NoError(t, q.Ack(b2))
			assert.Equal(t, 20, q.Len())
			require.NoError(t, q.Ack(b1))
			assert.Equal(t, 10, q.Len())
			require.NoError(t, q.Close())

			q2, rec := open(t, opts)
			assert.Equal(t, 10, rec.Records, "the unacknowledged batch and the unread rest")
			again, _ := readAll(t, q2, 100)
			assert.Equal(t, strs(payloads(20, 30)), again)
			_, err = q2.Append(payloads(30, 32))
			require.NoError(t, err)
			more, _ := readAll(t, q2, 100)
			assert.Equal(t, strs(payloads(30, 32)), more)
		})
	}
}

func TestOutOfOrderAckKeepsTheEarliestUnacknowledged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Dir: dir, MaxBytes: 1 << 20}
	q, _, err := Open(opts)
	require.NoError(t, err)
	_, err = q.Append(payloads(0, 6))
	require.NoError(t, err)
	b1, _ := q.Read(3, 1<<20, func([]byte) {})
	b2, _ := q.Read(3, 1<<20, func([]byte) {})
	require.NoError(t, q.Ack(b2))
	require.NoError(t, q.Close())
	q2, rec := open(t, opts)
	assert.Equal(t, 6, rec.Records, "b1 was never acknowledged: both batches come back")
	got, _ := readAll(t, q2, 10)
	assert.Equal(t, strs(payloads(0, 6)), got)
	_ = b1
}

func TestMaxBytesRefusesAppends(t *testing.T) {
	t.Parallel()
	q, _ := open(t, Options{Dir: t.TempDir(), MaxBytes: 200, SegmentBytes: 100})
	n, err := q.Append(payloads(0, 100))
	require.NoError(t, err)
	assert.Less(t, n, 100)
	assert.Positive(t, n)
	assert.LessOrEqual(t, q.Bytes(), int64(200))
	got, batches := readAll(t, q, 100)
	assert.Equal(t, strs(payloads(0, n)), got, "what was taken is kept whole")
	for _, b := range batches {
		require.NoError(t, q.Ack(b))
	}
	// The next segment starts; the room of acknowledged ones comes back.
	m, err := q.Append(payloads(0, 3))
	require.NoError(t, err)
	assert.Equal(t, 3, m)
}

func TestTornTailIsCutOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Dir: dir, MaxBytes: 1 << 20}
	q, _, err := Open(opts)
	require.NoError(t, err)
	_, err = q.Append(payloads(0, 5))
	require.NoError(t, err)
	require.NoError(t, q.Close())
	seg := filepath.Join(dir, segmentName(1))
	fi, err := os.Stat(seg)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(seg, fi.Size()-3)) // the last record torn

	q2, rec := open(t, opts)
	assert.Equal(t, 4, rec.Records)
	assert.Equal(t, int64(recordSize(len("record 0004"))-3), rec.TornBytes)
	_, err = q2.Append(payloads(5, 6))
	require.NoError(t, err)
	got, _ := readAll(t, q2, 100)
	assert.Equal(t, append(strs(payloads(0, 4)), "record 0005"), got)
}

func TestCorruptSegmentIsSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Dir: dir, MaxBytes: 1 << 20, SegmentBytes: 100}
	q, _, err := Open(opts)
	require.NoError(t, err)
	_, err = q.Append(payloads(0, 20))
	require.NoError(t, err)
	require.NoError(t, q.Close())
	first := filepath.Join(dir, segmentName(1))
	b, err := os.ReadFile(first)
	require.NoError(t, err)
	b[len(b)-1] ^= 0xff // the first segment's last record
	require.NoError(t, os.WriteFile(first, b, 0o600))

	q2, rec := open(t, opts)
	assert.Equal(t, 1, rec.Corrupt)
	got, _ := readAll(t, q2, 100)
	assert.Len(t, got, 19)
	assert.NotContains(t, got, "record 0"+fmt.Sprint(len(got)))
	assert.Equal(t, "record 0019", got[len(got)-1], "later segments are read")
}

func TestTornCursorReadsFromTheOldest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Dir: dir, MaxBytes: 1 << 20}
	q, _, err := Open(opts)
	require.NoError(t, err)
	_, err = q.Append(payloads(0, 4))
	require.NoError(t, err)
	b, _ := q.Read(2, 1<<20, func([]byte) {})
	require.NoError(t, q.Ack(b))
	require.NoError(t, q.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cursor"), []byte("RGLQ\x01"), 0o600))
	q2, rec := open(t, opts)
	assert.Equal(t, 4, rec.Records, "delivered again rather than lost")
	got, _ := readAll(t, q2, 10)
	assert.Equal(t, strs(payloads(0, 4)), got)
}

func TestOneProcessPerDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open(t, Options{Dir: dir, MaxBytes: 1 << 20})
	_, _, err := Open(Options{Dir: dir, MaxBytes: 1 << 20})
	assert.ErrorContains(t, err, "in use")
}

func TestLargeRecordAndSmallReadBudget(t *testing.T) {
	t.Parallel()
	q, _ := open(t, Options{Dir: t.TempDir(), MaxBytes: 1 << 20})
	big := make([]byte, 5000)
	for i := range big {
		big[i] = byte(i)
	}
	_, err := q.Append([][]byte{[]byte("a"), big, []byte("b")})
	require.NoError(t, err)
	var got [][]byte
	for q.Waiting() > 0 {
		b, err := q.Read(10, 16, func(p []byte) { got = append(got, append([]byte(nil), p...)) })
		require.NoError(t, err)
		require.Positive(t, b.Len())
	}
	require.Len(t, got, 3)
	assert.Equal(t, big, got[1])
}

func TestOpenRefusesBadOptions(t *testing.T) {
	t.Parallel()
	_, _, err := Open(Options{Dir: t.TempDir()})
	assert.Error(t, err)
	_, _, err = Open(Options{Dir: t.TempDir(), MaxBytes: 1, Sync: "sometimes"})
	assert.ErrorContains(t, err, "sometimes")
}
