package h1wire

import (
	"bufio"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		text     string
		want     http.Header
		wantSeen Framing
		wantErr  error
	}{
		{desc: "canonical, trimmed and grouped",
			text:     "content-type:  application/json \t\r\nX-Many: 1\r\nx-many: 2\r\nContent-Length: 2\r\n\r\n",
			want:     http.Header{"Content-Type": {"application/json"}, "X-Many": {"1", "2"}, "Content-Length": {"2"}},
			wantSeen: FieldContentLength},
		{desc: "bare line ends", text: "A: 1\nB: 2\n\nC: 3\n", want: http.Header{"A": {"1"}, "B": {"2"}}},
		{desc: "no fields", text: "\r\n", want: http.Header{}},
		{desc: "framing fields noted",
			text:     "Connection: close\r\nTransfer-Encoding: chunked\r\nTrailer: X\r\nPragma: no-cache\r\nHost: a\r\n\r\n",
			want:     http.Header{"Connection": {"close"}, "Transfer-Encoding": {"chunked"}, "Trailer": {"X"}, "Pragma": {"no-cache"}, "Host": {"a"}},
			wantSeen: FieldConnection | FieldTransferEncoding | FieldTrailer | FieldPragma | FieldHost},
		{desc: "empty value", text: "X-A:\r\n\r\n", want: http.Header{"X-A": {""}}},
		{desc: "obs-text value", text: "X-A: caf\xe9\r\n\r\n", want: http.Header{"X-A": {"caf\xe9"}}},
		{desc: "folded line", text: "X-A: 1\r\n 2\r\n\r\n", wantErr: ErrMalformed},
		{desc: "space before the colon", text: "X-A : 1\r\n\r\n", wantErr: ErrMalformed},
		{desc: "no colon", text: "X-A\r\n\r\n", wantErr: ErrMalformed},
		{desc: "empty name", text: ": 1\r\n\r\n", wantErr: ErrMalformed},
		{desc: "control byte in a value", text: "X-A: 1\x002\r\n\r\n", wantErr: ErrMalformed},
		{desc: "no blank line", text: "X-A: 1\r\n", wantErr: ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			h, seen, err := ParseFields(tt.text)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.NotContains(t, err.Error(), ErrMalformed.Error(), "the message is the detail alone")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, h)
			assert.Equal(t, tt.wantSeen, seen)
		})
	}
}

func TestParseFieldsValuesDoNotOverlap(t *testing.T) {
	t.Parallel()
	h, _, err := ParseFields("A: 1\r\nB: 2\r\n\r\n")
	require.NoError(t, err)
	h["A"] = append(h["A"], "x")
	assert.Equal(t, []string{"2"}, h["B"])
}

func TestParseCutFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		text    string
		want    http.Header
		wantErr error
	}{
		{desc: "whole", text: "A: 1\r\n\r\n", want: http.Header{"A": {"1"}}},
		{desc: "nothing", text: "", wantErr: io.ErrUnexpectedEOF},
		{desc: "last line with its end", text: "A: 1\r\n", wantErr: io.ErrUnexpectedEOF},
		{desc: "last line without its end", text: "A: 1", wantErr: io.ErrUnexpectedEOF},
		{desc: "malformed line before the cut", text: "A 1\r\nB: 2", wantErr: ErrMalformed},
		{desc: "cut line counts as a line", text: "A: 1\r\nB", wantErr: ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			h, _, err := ParseCutFields(tt.text)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, h)
		})
	}
}

func TestCanonicalKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, name, want string
		ok               bool
	}{
		{desc: "already canonical", name: "Content-Type", want: "Content-Type", ok: true},
		{desc: "lower", name: "content-type", want: "Content-Type", ok: true},
		{desc: "upper", name: "X-REQUEST-ID", want: "X-Request-Id", ok: true},
		{desc: "token punctuation", name: "x_a.b~c", want: "X_a.b~c", ok: true},
		{desc: "empty", name: ""},
		{desc: "space", name: "X A"},
		{desc: "non-ascii", name: "Caf\xe9"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, ok := CanonicalKey(tt.name)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestTokensAndValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc         string
		s            string
		token, value bool
		trimmed      string
	}{
		{desc: "method", s: "GET", token: true, value: true, trimmed: "GET"},
		{desc: "every tchar punctuation", s: "!#$%&'*+-.^_`|~", token: true, value: true, trimmed: "!#$%&'*+-.^_`|~"},
		{desc: "empty", s: "", value: true},
		{desc: "spaces and tabs around", s: " \ta b\t ", value: true, trimmed: "a b"},
		{desc: "colon", s: "a:b", value: true, trimmed: "a:b"},
		{desc: "newline", s: "a\r\nb", trimmed: "a\r\nb"},
		{desc: "nul", s: "a\x00", trimmed: "a\x00"},
		{desc: "del", s: "a\x7f", trimmed: "a\x7f"},
		{desc: "obs-text", s: "\x80\xff", value: true, trimmed: "\x80\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.token, ValidToken(tt.s))
			assert.Equal(t, tt.value, ValidValue(tt.s))
			assert.Equal(t, tt.trimmed, TrimOWS(tt.s))
		})
	}
}

// FuzzParseFields holds ParseFields to net/http's textproto reader: what
// it accepts, textproto reads as the same header; and ParseCutFields
// accepts a text only when ParseFields reads it the same.
func FuzzParseFields(f *testing.F) {
	for _, seed := range []string{
		"Content-Type: application/json\r\nX-Many: 1\r\nx-many: 2",
		"A: 1\nB: 2\n\nC: 3",
		"X-A: 1\r\n 2",
		"X-A : 1",
		"X-A: caf\xe9\x00",
		"content-length: 1\r\nContent-Length: 1",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		whole := text + "\r\n\r\n"
		h, _, err := ParseFields(whole)
		if err == nil {
			want, terr := textproto.NewReader(bufio.NewReader(strings.NewReader(whole))).ReadMIMEHeader()
			if terr != nil {
				t.Fatalf("accepted %q, which textproto refuses: %v", whole, terr)
			}
			if !assert.ObjectsAreEqual(http.Header(want), h) {
				t.Fatalf("%q read as %q, textproto reads %q", whole, h, want)
			}
		}
		cut, _, cerr := ParseCutFields(text)
		if cerr != nil {
			return
		}
		got, _, err := ParseFields(text)
		if err != nil || !assert.ObjectsAreEqual(got, cut) {
			t.Fatalf("%q cut read as %q, whole as %q (%v)", text, cut, got, err)
		}
	})
}

// BenchmarkParseFields parses the fields of a typical API request head.
func BenchmarkParseFields(b *testing.B) {
	text := "Host: api.example.com\r\nUser-Agent: client/1.0\r\nAccept: application/json\r\nAccept-Encoding: gzip\r\n" +
		"Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln\r\n" +
		"Traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n" +
		"X-Request-Id: 9f1c2d3e\r\nConnection: keep-alive\r\n\r\n"
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ParseFields(text); err != nil {
			b.Fatal(err)
		}
	}
}
