package h1wire

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContentLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		values   []string
		want     int64
		wantVals []string
		wantErr  bool
	}{
		{desc: "none", values: nil, want: -1},
		{desc: "one", values: []string{"12"}, want: 12, wantVals: []string{"12"}},
		{desc: "zero", values: []string{"0"}, want: 0, wantVals: []string{"0"}},
		{desc: "equal repeats merged", values: []string{"3", "3"}, want: 3, wantVals: []string{"3"}},
		{desc: "differing", values: []string{"3", "4"}, wantErr: true},
		{desc: "signed", values: []string{"+3"}, wantErr: true},
		{desc: "hex", values: []string{"0x3"}, wantErr: true},
		{desc: "empty", values: []string{""}, wantErr: true},
		{desc: "2^63", values: []string{"9223372036854775808"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			if tt.values != nil {
				h["Content-Length"] = tt.values
			}
			got, err := ContentLength(h)
			if tt.wantErr {
				require.ErrorIs(t, err, ErrMalformed)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantVals, h["Content-Length"])
		})
	}
}

func TestOnlyChunked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		te   []string
		ok   bool
	}{
		{desc: "chunked", te: []string{"chunked"}, ok: true},
		{desc: "any ascii case", te: []string{"ChUnKeD"}, ok: true},
		{desc: "gzip", te: []string{"gzip"}},
		{desc: "two codings", te: []string{"gzip, chunked"}},
		{desc: "twice", te: []string{"chunked", "chunked"}},
		{desc: "unicode folding", te: []string{"chun\u212aed"}}, // Kelvin sign
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			err := OnlyChunked(tt.te)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, ErrMalformed)
			}
		})
	}
}

func TestDeclaredTrailer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		h       http.Header
		want    http.Header
		wantErr bool
	}{
		{desc: "none", h: http.Header{"A": {"1"}}},
		{desc: "names canonical", h: http.Header{"Trailer": {"x-sum, X-Other", " ,x-third"}},
			want: http.Header{"X-Sum": nil, "X-Other": nil, "X-Third": nil}},
		{desc: "only commas", h: http.Header{"Trailer": {" , "}}},
		{desc: "framing field", h: http.Header{"Trailer": {"X, content-length"}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := DeclaredTrailer(tt.h)
			assert.NotContains(t, tt.h, "Trailer")
			if tt.wantErr {
				require.ErrorIs(t, err, ErrMalformed)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFixPragma(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		h    http.Header
		seen Framing
		want []string
	}{
		{desc: "no-cache", h: http.Header{"Pragma": {"no-cache"}}, seen: FieldPragma, want: []string{"no-cache"}},
		{desc: "own cache-control kept", h: http.Header{"Pragma": {"no-cache"}, "Cache-Control": {"max-age=1"}}, seen: FieldPragma,
			want: []string{"max-age=1"}},
		{desc: "other pragma", h: http.Header{"Pragma": {"x"}}, seen: FieldPragma},
		{desc: "not noted", h: http.Header{"Pragma": {"no-cache"}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			FixPragma(tt.h, tt.seen)
			assert.Equal(t, tt.want, tt.h["Cache-Control"])
		})
	}
}

func TestHasToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		values []string
		token  string
		want   bool
	}{
		{desc: "alone", values: []string{"close"}, token: "close", want: true},
		{desc: "in a list", values: []string{"Upgrade", "keep-alive,\tClose "}, token: "close", want: true},
		{desc: "part of a word", values: []string{"closed"}, token: "close"},
		{desc: "unicode folding", values: []string{"cloſe"}, token: "close"},
		{desc: "none", values: nil, token: "close"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, HasToken(tt.values, tt.token))
		})
	}
}

// FuzzContentLength holds ContentLength to strconv: a length is accepted
// exactly when it is a plain decimal number below 2^63, and repeats only
// when equal.
func FuzzContentLength(f *testing.F) {
	f.Add("12", "12")
	f.Add("12", "13")
	f.Add("+1", "")
	f.Add("9223372036854775807", "")
	f.Add(" 1", "")
	f.Fuzz(func(t *testing.T, first, second string) {
		values := []string{first}
		if second != "" {
			values = append(values, second)
		}
		got, err := ContentLength(http.Header{"Content-Length": values})
		want, perr := strconv.ParseInt(first, 10, 64)
		plain := perr == nil && first != "" && first[0] != '+' && first[0] != '-'
		same := second == "" || second == first
		switch {
		case err == nil && (!plain || !same || got != want):
			t.Fatalf("%q read as %d", values, got)
		case err != nil && plain && same:
			t.Fatalf("%q refused: %v", values, err)
		}
	})
}
