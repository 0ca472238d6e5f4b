package h1wire

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadLength(t *testing.T) {
	t.Parallel()
	errDeadline := errors.New("deadline")
	tests := []struct {
		desc    string
		src     io.Reader
		length  int64
		want    string
		wantErr error
		wantEnd bool
	}{
		{desc: "eof with the last bytes", src: strings.NewReader("abcdef"), length: 3, want: "abc", wantErr: io.EOF, wantEnd: true},
		{desc: "cut short", src: strings.NewReader("ab"), length: 3, want: "ab", wantErr: io.ErrUnexpectedEOF, wantEnd: true},
		{desc: "source error passes", src: iotest.ErrReader(errDeadline), length: 3, wantErr: errDeadline},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			left := tt.length
			var got []byte
			buf := make([]byte, 2)
			for {
				n, end, err := ReadLength(tt.src, buf, &left)
				got = append(got, buf[:n]...)
				if err != nil {
					require.ErrorIs(t, err, tt.wantErr)
					assert.Equal(t, tt.wantEnd, end)
					break
				}
				require.False(t, end)
			}
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, tt.length-int64(len(got)), left)
		})
	}
}

func TestTrailerFollows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		in      string
		bufSize int
		want    bool
		wantErr error
		rest    string
	}{
		{desc: "empty section consumed", in: "\r\nnext", bufSize: 16, rest: "next"},
		{desc: "a trailer", in: "X-Sum: 3\r\n\r\nnext", bufSize: 64, want: true, rest: "X-Sum: 3\r\n\r\nnext"},
		{desc: "cut short", in: "X", bufSize: 16, wantErr: ErrTrailerEOF},
		{desc: "nothing", in: "", bufSize: 16, wantErr: ErrTrailerEOF},
		{desc: "without its end", in: "X-Sum: 3\r\n", bufSize: 64, wantErr: ErrLongTrailer},
		{desc: "longer than the buffer", in: "X-Sum: " + strings.Repeat("3", 40) + "\r\n\r\n", bufSize: 16, wantErr: ErrLongTrailer},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			br := bufio.NewReaderSize(strings.NewReader(tt.in), tt.bufSize)
			got, err := TrailerFollows(br)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.False(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			rest, err := io.ReadAll(br)
			require.NoError(t, err)
			assert.Equal(t, tt.rest, string(rest))
		})
	}
}
