package upstreams

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func answerOf(body io.Reader, length int64) *http.Response {
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(body), ContentLength: length}
}

func TestAnswersRead(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789", 2000) // past the first buffer of an unknown length
	tests := []struct {
		desc   string
		body   io.Reader
		length int64
		limit  int64
		want   string
	}{
		{desc: "announced length", body: strings.NewReader(`[{"Id":"1"}]`), length: 12, limit: 100, want: `[{"Id":"1"}]`},
		{desc: "unknown length", body: strings.NewReader(long), length: -1, limit: 1 << 20, want: long},
		{desc: "small reads", body: iotest.OneByteReader(strings.NewReader(long)), length: -1, limit: 1 << 20, want: long},
		{desc: "announced length wrong", body: strings.NewReader(long), length: 10, limit: 1 << 20, want: long},
		{desc: "empty", body: strings.NewReader(""), length: 0, limit: 10, want: ""},
		{desc: "over the limit stops one byte past it", body: strings.NewReader(long), length: -1, limit: 10, want: long[:11]},
		{desc: "announced over the limit", body: strings.NewReader(long), length: int64(len(long)), limit: 10, want: long[:11]},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var p Answers
			a, err := p.Read(answerOf(tt.body, tt.length), tt.limit)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(a.JSON))
			a.Release()
			assert.Nil(t, a.JSON, "a released answer shows nothing")
			a.Release() // twice does nothing
		})
	}
}

func TestAnswersReadError(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset")
	var p Answers
	a, err := p.Read(answerOf(io.MultiReader(strings.NewReader("[1,"), iotest.ErrReader(broken)), -1), 100)
	require.ErrorIs(t, err, broken)
	assert.Nil(t, a)

	var nilAnswer *Answer
	nilAnswer.Release()
}

// BenchmarkAnswersRead reads a 14 KB list answer (320 records) and a
// 1.5 MB one (2000 records) and releases it, as the accounts adapter does
// per request: the pooled size classes make it free of allocations.
func BenchmarkAnswersRead(b *testing.B) {
	for _, bb := range []struct {
		name    string
		records int
		limit   int64
	}{{"14KB", 320, 1 << 20}, {"1.5MB", 33000, 8 << 20}} {
		b.Run(bb.name, func(b *testing.B) {
			body := bytes.Repeat([]byte(`{"Id":"001000000000001AAA","Name":"Account"},`), bb.records)
			var p Answers
			rd := bytes.NewReader(body)
			resp := answerOf(rd, int64(len(body)))
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				rd.Reset(body)
				a, err := p.Read(resp, bb.limit)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
		})
	}
}
