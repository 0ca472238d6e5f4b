package mapping

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testMap(t testing.TB) *KeyMap {
	t.Helper()
	km, err := NewKeyMap(map[string]string{
		"Id": "id", "Name": "name", "Total_Assets__c": "totalAssets", "Type": "type",
	})
	require.NoError(t, err)
	return km
}

func TestRewrite(t *testing.T) {
	t.Parallel()
	km := testMap(t)
	tests := []struct {
		desc string
		src  string
		opts Options
		want string
	}{
		{desc: "no map copies compactly", src: " { \"Id\" : 1 ,\n\"x\":[ 1 , 2 ] } ", want: `{"Id":1,"x":[1,2]}`},
		{desc: "empty map copies", src: `{"Id":1}`, opts: Options{Map: &KeyMap{}}, want: `{"Id":1}`},
		{desc: "top-level object keys", src: `{"Id":"a","Name":"b","Other":1}`, opts: Options{Map: km}, want: `{"id":"a","name":"b","Other":1}`},
		{
			desc: "keys at every depth",
			src:  `[{"Id":1,"Parent":{"Name":"p","Kids":[{"Type":"t"}]}},[{"Name":2}]]`,
			opts: Options{Map: km},
			want: `[{"id":1,"Parent":{"name":"p","Kids":[{"type":"t"}]}},[{"name":2}]]`,
		},
		{desc: "values are never renamed", src: `{"x":"Name","y":["Id"]}`, opts: Options{Map: km}, want: `{"x":"Name","y":["Id"]}`},
		{desc: "reverse map", src: `{"id":1,"totalAssets":2,"Name":3}`, opts: Options{Map: km.Reverse()}, want: `{"Id":1,"Total_Assets__c":2,"Name":3}`},
		{desc: "scalars at top level", src: ` 12 `, opts: Options{Map: km}, want: `12`},
		{desc: "empty containers", src: `{"a":{},"b":[],"c":[{}]}`, want: `{"a":{},"b":[],"c":[{}]}`},
		{
			desc: "numbers keep their text",
			src:  `[12345678901234567890,1.10,-0.0e+5,0,-0,1E-7,3.141592653589793238462643383279]`,
			want: `[12345678901234567890,1.10,-0.0e+5,0,-0,1E-7,3.141592653589793238462643383279]`,
		},
		{
			desc: "strings keep their escapes",
			src:  `{"s":"a\"b\\c\/d\u00e9\n\ud83d\ude00 é <&>"}`,
			want: `{"s":"a\"b\\c\/d\u00e9\n\ud83d\ude00 é <&>"}`,
		},
		{desc: "escaped key matched by decoded value", src: `{"Na\u006de":1}`, opts: Options{Map: km}, want: `{"name":1}`},
		{desc: "escaped unmapped key written verbatim", src: `{"O\u0074her":1}`, opts: Options{Map: km}, want: `{"O\u0074her":1}`},
		{desc: "surrogate pair key", src: `{"\ud83d\ude00":1}`, opts: Options{Map: mustMap(t, map[string]string{"😀": "smile"})}, want: `{"smile":1}`},
		{desc: "mapped name needing escapes", src: `{"a":1}`, opts: Options{Map: mustMap(t, map[string]string{"a": "q\"\\\n"})}, want: `{"q\"\\\n":1}`},
		{desc: "key order kept", src: `{"Type":1,"Id":2,"Name":3}`, opts: Options{Map: km}, want: `{"type":1,"id":2,"name":3}`},
		{desc: "duplicate keys pass", src: `{"Id":1,"Id":2}`, opts: Options{Map: km}, want: `{"id":1,"id":2}`},
		{
			desc: "drop nulls at every depth, keep null elements",
			src:  `{"a":null,"b":{"c":null,"d":1},"e":[null,{"f":null}],"g":null}`,
			opts: Options{DropNulls: true},
			want: `{"b":{"d":1},"e":[null,{}]}`,
		},
		{desc: "drop nulls first and last", src: `[{"a":null,"b":1,"c":null}]`, opts: Options{DropNulls: true}, want: `[{"b":1}]`},
		{desc: "nulls kept by default", src: `{"a":null}`, want: `{"a":null}`},
		{desc: "top-level null stays", src: `null`, opts: Options{DropNulls: true}, want: `null`},
		{
			desc: "select at record depth of an array",
			src:  `[{"Id":1,"Name":"a","Type":"t","attributes":{"type":"Account"}},{"Name":"b","Id":2},[{"Type":3}],5]`,
			opts: Options{Map: km, Select: NewFieldSet("Id", "Name")},
			want: `[{"id":1,"name":"a"},{"name":"b","id":2},[{"type":3}],5]`,
		},
		{
			desc: "select at record depth of an object, not deeper",
			src:  `{"Id":1,"Type":2,"Name":{"Type":3,"Id":4}}`,
			opts: Options{Select: NewFieldSet("Id", "Name")},
			want: `{"Id":1,"Name":{"Type":3,"Id":4}}`,
		},
		{desc: "select matches source names", src: `{"Id":1,"id":2}`, opts: Options{Map: km, Select: NewFieldSet("Id")}, want: `{"id":1}`},
		{desc: "empty select keeps nothing", src: `[{"Id":1}]`, opts: Options{Select: NewFieldSet()}, want: `[{}]`},
		{desc: "select and drop nulls", src: `[{"Id":null,"Name":"a","Type":null}]`, opts: Options{Select: NewFieldSet("Id", "Name"), DropNulls: true}, want: `[{"Name":"a"}]`},
		{
			desc: "reject unknown accepts both sides",
			src:  `{"name":"a","Total_Assets__c":1,"id":{"anything":1}}`,
			opts: Options{Map: km.Reverse(), RejectUnknown: true},
			want: `{"Name":"a","Total_Assets__c":1,"Id":{"anything":1}}`,
		},
		{desc: "reject unknown without a map has no effect", src: `{"x":1}`, opts: Options{RejectUnknown: true}, want: `{"x":1}`},
		{desc: "reject unknown ignores deeper keys", src: `[{"id":{"x":[{"y":1}]}}]`, opts: Options{Map: km.Reverse(), RejectUnknown: true}, want: `[{"Id":{"x":[{"y":1}]}}]`},
		{desc: "depth at the limit", src: `[[[1]]]`, opts: Options{MaxDepth: 3}, want: `[[[1]]]`},
		{desc: "output just under the limit", src: `[1,2]`, opts: Options{MaxOutput: 6}, want: `[1,2]`},
		{desc: "negative limit is unlimited", src: `"` + strings.Repeat("x", 60000) + `"`, opts: Options{MaxOutput: -1}, want: `"` + strings.Repeat("x", 60000) + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := Rewrite([]byte("prefix:"), []byte(tt.src), tt.opts)
			require.NoError(t, err)
			assert.Equal(t, "prefix:"+tt.want, string(got))
			assert.True(t, json.Valid(got[len("prefix:"):]))
		})
	}
}

func mustMap(t testing.TB, pairs map[string]string) *KeyMap {
	t.Helper()
	km, err := NewKeyMap(pairs)
	require.NoError(t, err)
	return km
}

func TestRewriteErrors(t *testing.T) {
	t.Parallel()
	km := testMap(t)
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	tests := []struct {
		desc    string
		src     string
		opts    Options
		want    error
		offset  int64 // checked for syntax errors
		unknown string
	}{
		{desc: "empty input", src: ``, offset: 0},
		{desc: "only space", src: "  \n", offset: 3},
		{desc: "trailing garbage", src: `{"a":1} x`, offset: 8},
		{desc: "two values", src: `1 2`, offset: 2},
		{desc: "unterminated object", src: `{"a":1`, offset: 6},
		{desc: "unterminated array", src: `[1,`, offset: 3},
		{desc: "missing colon", src: `{"a" 1}`, offset: 5},
		{desc: "trailing comma in object", src: `{"a":1,}`, offset: 7},
		{desc: "trailing comma in array", src: `[1,]`, offset: 3},
		{desc: "unquoted key", src: `{a:1}`, offset: 1},
		{desc: "bad literal", src: `[tru]`, offset: 1},
		{desc: "literal with extra letters", src: `[truex]`, offset: 5},
		{desc: "leading zero", src: `01`, offset: 1},
		{desc: "plus sign", src: `+1`, offset: 0},
		{desc: "bare minus", src: `-`, offset: 1},
		{desc: "dot without digits", src: `1.`, offset: 2},
		{desc: "exponent without digits", src: `1e+`, offset: 3},
		{desc: "control character in string", src: "\"a\tb\"", offset: 2},
		{desc: "invalid UTF-8 in string", src: "\"a\xffb\"", offset: 2},
		{desc: "invalid UTF-8 in key", src: "{\"\xc3\":1}", offset: 2},
		{desc: "UTF-8 surrogate bytes", src: "\"\xed\xa0\x80\"", offset: 1},
		{desc: "bad escape", src: `"\x"`, offset: 2},
		{desc: "short unicode escape", src: `"\u12"`, offset: 5},
		{desc: "unicode escape cut off", src: `"\u12`, offset: 5},
		{desc: "unterminated string", src: `"abc`, offset: 4},
		{desc: "garbage in skipped value", src: `[{"Type":[1,}]`, opts: Options{Select: NewFieldSet("Id")}, offset: 12},
		{desc: "bad null when dropping", src: `{"a":nul}`, opts: Options{DropNulls: true}, offset: 5},
		{desc: "too deep", src: deep, want: ErrTooDeep},
		{desc: "too deep with a custom limit", src: `{"a":{"b":{}}}`, opts: Options{MaxDepth: 2}, want: ErrTooDeep},
		{desc: "too deep inside a skipped value", src: `[{"x":[[[]]]}]`, opts: Options{MaxDepth: 3, Select: NewFieldSet()}, want: ErrTooDeep},
		{desc: "output at the limit", src: `[1,2]`, opts: Options{MaxOutput: 5}, want: ErrTooLarge},
		{desc: "default output limit", src: `"` + strings.Repeat("x", 49998) + `"`, want: ErrTooLarge},
		{desc: "unknown field", src: `[{"id":1},{"name":1,"bogus":2}]`, opts: Options{Map: km.Reverse(), RejectUnknown: true}, unknown: "bogus"},
		{desc: "unknown escaped field is decoded", src: `{"b\u00f6gus":1}`, opts: Options{Map: km.Reverse(), RejectUnknown: true}, unknown: "bögus"},
		{desc: "unknown field outside select", src: `{"bogus":1}`, opts: Options{Map: km, RejectUnknown: true, Select: NewFieldSet("Id")}, unknown: "bogus"},
		{desc: "missing colon before an unknown field", src: `{"bogus" 1}`, opts: Options{Map: km, RejectUnknown: true}, offset: 9},
		{desc: "unknown field at a record key's position", src: `[{"id":1},{"id":2},{"idx":3}]`, opts: Options{Map: km.Reverse(), RejectUnknown: true}, unknown: "idx"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			dst := []byte("keep")
			got, err := Rewrite(dst, []byte(tt.src), tt.opts)
			require.Error(t, err)
			assert.Equal(t, "keep", string(got), "no partial output on error")
			switch {
			case tt.want != nil:
				assert.ErrorIs(t, err, tt.want)
			case tt.unknown != "":
				var ue *UnknownFieldError
				require.ErrorAs(t, err, &ue)
				assert.Equal(t, tt.unknown, ue.Field)
			default:
				var se *SyntaxError
				require.ErrorAs(t, err, &se, "%v", err)
				assert.Equal(t, tt.offset, se.Offset, se.Msg)
				assert.False(t, json.Valid([]byte(tt.src)) && utf8.ValidString(tt.src),
					"only invalid JSON or invalid UTF-8 is a syntax error")
			}
		})
	}
}

func TestRewriteErrorMessages(t *testing.T) {
	t.Parallel()
	_, err := Rewrite(nil, []byte(`{"a" 1}`), Options{})
	assert.EqualError(t, err, `mapping: invalid JSON at offset 5: invalid character '1' after object key`)
	assert.EqualError(t, &UnknownFieldError{Field: "x"}, `mapping: unknown field "x"`)
	assert.EqualError(t, ErrTooLarge, `mapping: output too large`)
}

// Not parallel: testing.AllocsPerRun refuses to run beside parallel tests.
func TestRewriteReusesBuffer(t *testing.T) {
	km := testMap(t)
	src := []byte(`[{"Id":"1","Name":"n","Total_Assets__c":null,"Na\u006de":"x","attributes":{"type":"Account"}}]`)
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		buf, err = Rewrite(buf[:0], src, Options{Map: km, DropNulls: true})
		if err != nil {
			panic(err)
		}
	})
	assert.Zero(t, allocs)
	assert.Equal(t, `[{"id":"1","name":"n","name":"x","attributes":{"type":"Account"}}]`, string(buf))
}
