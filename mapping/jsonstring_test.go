package mapping

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctrl\x00\x1f\n\t\r", "é ☃ 😀", "bad \xff utf8", "\u2028\u2029"} {
		out := AppendString(nil, s)
		var back string
		require.NoError(t, json.Unmarshal(out, &back), s)
		if utf8.ValidString(s) {
			assert.Equal(t, s, back)
		}
		assert.Equal(t, string(out), string(AppendString(nil, []byte(s))), "string and []byte agree")
	}
	assert.Equal(t, `"\u2028"`, string(AppendString(nil, "\u2028")))
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "\xe2\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if !json.Valid(out) {
			t.Fatalf("invalid JSON %q for %q", out, s)
		}
		if utf8.ValidString(s) {
			var back string
			if err := json.Unmarshal(out, &back); err != nil || back != s {
				t.Fatalf("round trip of %q gave %q (%v)", s, back, err)
			}
		}
	})
}

func TestAppendStringExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want string
	}{
		{desc: "plain", in: "Acme", want: `"Acme"`},
		{desc: "empty", in: "", want: `""`},
		{desc: "quote and backslash", in: `a"b\c`, want: `"a\"b\\c"`},
		{desc: "newline and tab", in: "a\nb\tc\r", want: `"a\nb\tc\r"`},
		{desc: "control character", in: "a\x01b", want: `"a\u0001b"`},
		{desc: "non-ASCII kept", in: "Müller & Söhne", want: `"Müller & Söhne"`},
		{desc: "line separator escaped", in: "a\u2028b\u2029", want: `"a\u2028b\u2029"`},
		{desc: "invalid UTF-8 replaced", in: "a\xffb", want: `"a\ufffdb"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(AppendString(nil, tt.in)))
		})
	}
}

func FuzzAppendStringAppends(f *testing.F) {
	for _, s := range []string{"", "Acme", `"\`, "\x00\x1f", "a\u2028b", "\xff\xfe", "Müller", "<script>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString([]byte("x"), s)
		require.Equal(t, byte('x'), out[0], "appends, never overwrites")
		require.True(t, json.Valid(out[1:]), "%q -> %s", s, out[1:])
		var back string
		require.NoError(t, json.Unmarshal(out[1:], &back))
		if utf8.ValidString(s) {
			assert.Equal(t, s, back)
			return
		}
		// Invalid bytes read back as encoding/json's would: one U+FFFD each.
		std, err := json.Marshal(s)
		require.NoError(t, err)
		var want string
		require.NoError(t, json.Unmarshal(std, &want))
		assert.Equal(t, want, back)
	})
}
