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
