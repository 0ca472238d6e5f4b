package h1wire

import (
	"bufio"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadHead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc        string
		in          string
		limit       int
		bufSize     int
		want        string
		wantErr     error
		wantPartial string
	}{
		{desc: "within the buffer", in: "HTTP/1.1 200 OK\r\nX: 1\r\n\r\nbody", limit: 64, bufSize: 1024,
			want: "HTTP/1.1 200 OK\r\nX: 1\r\n\r\n"},
		{desc: "bare line ends", in: "GET / HTTP/1.1\nX: 1\n\nbody", limit: math.MaxInt, bufSize: 16,
			want: "GET / HTTP/1.1\nX: 1\n\n"},
		{desc: "over the bound within the buffer", in: "HTTP/1.1 200 OK\r\nX: 1\r\n\r\n", limit: 16, bufSize: 1024,
			wantErr: ErrHeadTooLarge},
		{desc: "over the bound, nothing ends it", in: strings.Repeat("x", 100), limit: 16, bufSize: 1024, wantErr: ErrHeadTooLarge},
		{desc: "longer than the buffer", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("1", 100) + "\r\n\r\nbody", limit: 1024, bufSize: 16,
			want: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("1", 100) + "\r\n\r\n"},
		{desc: "longer than the buffer and the bound", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("1", 100) + "\r\n\r\n", limit: 64,
			bufSize: 16, wantErr: ErrHeadTooLarge},
		{desc: "cut short", in: "GET / HTTP/1.1\r\nX: 1\r\n", limit: math.MaxInt, bufSize: 1024,
			wantErr: io.EOF, wantPartial: "GET / HTTP/1.1\r\nX: 1\r\n"},
		{desc: "longer than the buffer, cut short", in: "GET / HTTP/1.1\r\nX: " + strings.Repeat("1", 100), limit: math.MaxInt,
			bufSize: 16, wantErr: io.EOF, wantPartial: "GET / HTTP/1.1\r\nX: " + strings.Repeat("1", 100)},
		{desc: "nothing", in: "", limit: math.MaxInt, bufSize: 16, wantErr: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			br := bufio.NewReaderSize(strings.NewReader(tt.in), tt.bufSize)
			got, err := ReadHead(br, tt.limit)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Equal(t, tt.wantPartial, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			rest, err := io.ReadAll(br)
			require.NoError(t, err)
			assert.Equal(t, tt.in[len(tt.want):], string(rest))
		})
	}
}

func TestNextLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, s, line, rest string
	}{
		{desc: "crlf", s: "a\r\nb\r\n", line: "a", rest: "b\r\n"},
		{desc: "lf", s: "a\nb", line: "a", rest: "b"},
		{desc: "blank", s: "\r\nx", line: "", rest: "x"},
		{desc: "no end", s: "a\r", line: "a\r", rest: ""},
		{desc: "lone cr kept inside", s: "a\rb\n", line: "a\rb", rest: ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			line, rest := NextLine(tt.s)
			assert.Equal(t, tt.line, line)
			assert.Equal(t, tt.rest, rest)
		})
	}
}

// FuzzReadHead reads arbitrary input through buffers of varied sizes: a
// head is the input up to its first blank line and the rest stays in the
// reader; a failure consumes what it returns, and nothing more.
func FuzzReadHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nX: 1\r\n\r\nbody"), uint8(0), uint16(64))
	f.Add([]byte("GET / HTTP/1.1\nX: 1\n\nbody"), uint8(1), uint16(1000))
	f.Add([]byte("GET / HTTP/1.1\r\nX: "+strings.Repeat("1", 100)), uint8(0), uint16(0))
	f.Add([]byte("\r\n"), uint8(3), uint16(1))
	f.Fuzz(func(t *testing.T, in []byte, size uint8, limit uint16) {
		br := bufio.NewReaderSize(strings.NewReader(string(in)), 16+int(size))
		head, err := ReadHead(br, int(limit))
		rest, _ := io.ReadAll(br)
		end := headLength(in)
		switch {
		case err == nil:
			if end < 0 || head != string(in[:end]) || end > int(limit) || string(rest) != string(in[end:]) {
				t.Fatalf("head %q, rest %q of %q (limit %d)", head, rest, in, limit)
			}
		case err == ErrHeadTooLarge:
			if end >= 0 && end <= int(limit) {
				t.Fatalf("head of %d bytes refused under limit %d", end, limit)
			}
		default:
			if end >= 0 || head+string(rest) != string(in) {
				t.Fatalf("%v with %q, rest %q of %q", err, head, rest, in)
			}
		}
	})
}

// headLength is the length of in through its first blank line, -1 for
// none.
func headLength(in []byte) int {
	s := string(in)
	for pos := 0; ; {
		line, rest := NextLine(s[pos:])
		if len(rest) == len(s[pos:]) || !strings.Contains(s[pos:], "\n") {
			return -1
		}
		pos = len(s) - len(rest)
		if line == "" {
			return pos
		}
	}
}
