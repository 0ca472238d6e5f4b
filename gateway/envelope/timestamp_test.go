package envelope

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAppendTimestamp(t *testing.T) {
	t.Parallel()
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		desc string
		t    time.Time
		want string
	}{
		{desc: "milliseconds kept, finer digits cut", t: time.Date(2026, 11, 22, 3, 4, 5, 678_999_999, time.UTC), want: "2026-11-22T03:04:05.678Z"},
		{desc: "zero padded", t: time.Date(7, 1, 2, 0, 0, 0, 1_000_000, time.UTC), want: "0007-01-02T00:00:00.001Z"},
		{desc: "converted to UTC", t: time.Date(2026, 1, 1, 0, 30, 0, 0, paris), want: "2025-12-31T23:30:00.000Z"},
		{desc: "year past 9999 uses the layout", t: time.Date(12026, 1, 1, 0, 0, 0, 0, time.UTC), want: "12026-01-01T00:00:00.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(AppendTimestamp([]byte("x"), tt.t))[1:])
		})
	}
}

// FuzzAppendTimestamp checks AppendTimestamp against AppendFormat with
// TimeLayout for any instant.
func FuzzAppendTimestamp(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1795000000), int64(999_999_999))
	f.Add(int64(-62135596800), int64(5))
	f.Add(int64(253402300799), int64(999_000_000))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec)
		want := tm.UTC().AppendFormat(nil, TimeLayout)
		if got := AppendTimestamp(nil, tm); string(got) != string(want) {
			t.Fatalf("AppendTimestamp(%v) = %s, want %s", tm, got, want)
		}
	})
}

func BenchmarkAppendTimestamp(b *testing.B) {
	now := time.Now()
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendTimestamp(buf[:0], now)
	}
}
