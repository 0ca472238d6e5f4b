package mapping

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, src string
		want      bool
	}{
		{desc: "array of objects", src: `[{"a":1,"b":[true,false,null]},{"c":"d\u00e9\n"}]`, want: true},
		{desc: "surrounding whitespace", src: " \n\t{\"a\" : -1.5e+3 }\r\n", want: true},
		{desc: "scalar", src: `"x"`, want: true},
		{desc: "empty", src: ``},
		{desc: "only space", src: `  `},
		{desc: "two values", src: `{} {}`},
		{desc: "trailing comma", src: `[1,]`},
		{desc: "unclosed", src: `[{"a":1}`},
		{desc: "unquoted key", src: `{a:1}`},
		{desc: "leading zero", src: `01`},
		{desc: "bad escape", src: `"\x"`},
		{desc: "control character", src: "\"a\x01\""},
		{desc: "invalid UTF-8 in a string", src: "\"\xff\""},
		{desc: "deep but within the limit", src: strings.Repeat("[", 500) + strings.Repeat("]", 500), want: true},
		{desc: "deeper than encoding/json allows", src: strings.Repeat("[", maxValidDepth+1) + strings.Repeat("]", maxValidDepth+1)},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Valid([]byte(tt.src)))
		})
	}
}

// FuzzValid checks Valid against encoding/json: the same answer on every
// input that is valid UTF-8 and nested within the limit; never valid where
// encoding/json says invalid.
func FuzzValid(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(`[1, {"a": "b"}, null]`))
	f.Add([]byte("\"\xff\""))
	f.Fuzz(func(t *testing.T, src []byte) {
		got, want := Valid(src), json.Valid(src)
		if got && !want {
			t.Fatalf("Valid accepts what encoding/json refuses: %q", src)
		}
		if want && !got && utf8.Valid(src) {
			t.Fatalf("Valid refuses valid JSON: %q", src)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	src := benchAccounts(12 << 10)
	b.Run("mapping", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if !Valid(src) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			if !json.Valid(src) {
				b.Fatal("invalid")
			}
		}
	})
}
