package calllog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestRedactorAppend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want string
	}{
		{desc: "empty", in: "", want: ""},
		{desc: "no sensitive field", in: `{"name":"Acme","size":3}`, want: `{"name":"Acme","size":3}`},
		{desc: "top-level string", in: `{"user":"bob","password":"hunter2"}`, want: `{"user":"bob","password":"[REDACTED]"}`},
		{desc: "case-insensitive name", in: `{"PassWord" : "hunter2"}`, want: `{"PassWord" : "[REDACTED]"}`},
		{desc: "number and literal values", in: `{"token": 12345, "secret":null}`, want: `{"token": "[REDACTED]", "secret":"[REDACTED]"}`},
		{desc: "object value", in: `{"secret":{"a":"b","c":[1,"}"]},"x":1}`, want: `{"secret":"[REDACTED]","x":1}`},
		{desc: "array value", in: `{"authorization":["Bearer abc","x"],"x":1}`, want: `{"authorization":"[REDACTED]","x":1}`},
		{desc: "nested deep", in: `{"a":[{"b":{"clientSecret":"s3"}}]}`, want: `{"a":[{"b":{"clientSecret":"[REDACTED]"}}]}`},
		{desc: "escaped quote in value", in: `{"password":"a\"b","n":1}`, want: `{"password":"[REDACTED]","n":1}`},
		{desc: "name as a value is kept", in: `{"field":"password","v":"x"}`, want: `{"field":"password","v":"x"}`},
		{desc: "longer name is not the name", in: `{"user_token":"keep","mytoken":"keep"}`, want: `{"user_token":"keep","mytoken":"keep"}`},
		{desc: "escaped key", in: `{"pass\u0077ord":"hunter2"}`, want: `{"pass\u0077ord":"[REDACTED]"}`},
		{desc: "json inside a json string", in: `{"payload":"{\"api_key\":\"k1\",\"n\":2}"}`, want: `{"payload":"{\"api_key\":\"[REDACTED]\",\"n\":2}"}`},
		{desc: "object inside a json string", in: `{"p":"{\"secret\":{\"a\":1}}"}`, want: `{"p":"{\"secret\":\"[REDACTED]\"}"}`},
		{desc: "form in a json string", in: `{"q":"a=1&token=abc&b=2"}`, want: `{"q":"a=1&token=[REDACTED]&b=2"}`},
		{desc: "truncated string value", in: `{"password":"hunt`, want: `{"password":"[REDACTED]"`},
		{desc: "truncated object value", in: `{"secret":{"a":"hunt`, want: `{"secret":"[REDACTED]"`},
		{desc: "truncated after separator", in: `{"password":`, want: `{"password":"[REDACTED]"`},
		{desc: "form body", in: `user=bob&password=hunter2&x=1`, want: `user=bob&password=[REDACTED]&x=1`},
		{desc: "form body at the end", in: `user=bob&passwd=hunter2`, want: `user=bob&passwd=[REDACTED]`},
		{desc: "header-like text", in: "Authorization: Bearer abc.def\nX: y", want: "Authorization: [REDACTED]\nX: y"},
		{desc: "free text with a quoted value", in: `login token="abc def" ok`, want: `login token="[REDACTED]" ok`},
		{desc: "pretty-printed json", in: "{\n  \"refresh_token\":\n    \"r1\"\n}", want: "{\n  \"refresh_token\":\n    \"[REDACTED]\"\n}"},
		{desc: "word after an escape", in: `{"m":"line\npassword=abc"}`, want: `{"m":"line\npassword=[REDACTED]"}`},
		{desc: "not json, quoted member", in: `garbage "apiKey": "k-1", more`, want: `garbage "apiKey": "[REDACTED]", more`},
		{desc: "top-level json string", in: `"{\"token\":\"t\"}"`, want: `"{\"token\":\"[REDACTED]\"}"`},
		{desc: "value-less name before a field", in: "password:\n\"pin\" : {\"v\":\"1234\"}\nok", want: "password:\n\"[REDACTED]\"\nok"},
		{desc: "a quoted name after a name", in: `token: "k" = v&x=1`, want: `token: "[REDACTED]"&x=1`},
		{desc: "a bare name after a name", in: "[password:\npin: 1234\n0", want: "[password:\n\"[REDACTED]\"\n0"},
		{desc: "names in a chain", in: "secret= a= b: c&x=1", want: "secret= [REDACTED]&x=1"},
		{desc: "a value with a colon is one value", in: "secret=12:30&x=1", want: "secret=[REDACTED]&x=1"},
	}
	r := NewRedactor(nil)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := r.Append(nil, []byte(tt.in))
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestRedactorOutputStaysValidJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
	}{
		{desc: "flat", in: `{"password":"x","token":1,"a":"b"}`},
		{desc: "nested", in: `{"a":{"secret":[1,{"x":"y"}]},"b":[{"apiKey":true}]}`},
		{desc: "embedded", in: `{"s":"{\"password\":\"p\",\"o\":{\"token\":[1]}}"}`},
		{desc: "array top", in: `[{"privateKey":"-----BEGIN"},{"k":"v"}]`},
	}
	r := NewRedactor(nil)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := r.Append(nil, []byte(tt.in))
			assert.True(t, json.Valid(got), "%s", got)
			assert.Contains(t, string(got), maskBare)
		})
	}
}

func TestRedactorConfiguredNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		fields []string
		in     string
		want   string
	}{
		{desc: "custom name replaces defaults", fields: []string{"ssn"}, in: `{"SSN":"1","password":"p"}`, want: `{"SSN":"[REDACTED]","password":"p"}`},
		{desc: "dashed header name", fields: []string{"X-Api-Key"}, in: "x-api-key: k1\n", want: "x-api-key: [REDACTED]\n"},
		{desc: "empty list masks nothing", fields: []string{}, in: `{"password":"p"}`, want: `{"password":"p"}`},
		{desc: "invalid names are ignored", fields: []string{"", "a b", "pin"}, in: `{"a b":"x","pin":"1"}`, want: `{"a b":"x","pin":"[REDACTED]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := NewRedactor(tt.fields).Append(nil, []byte(tt.in))
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestAppendTruncated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		in      string
		max     int
		omitted int
		want    string
	}{
		{desc: "short", in: "abc", max: 5, want: "abc"},
		{desc: "exact", in: "abcde", max: 5, want: "abcde"},
		{desc: "cut", in: "abcdefgh", max: 5, want: "abcde...[truncated 3 bytes]"},
		{desc: "cut before a multi-byte rune", in: "abcdé", max: 5, want: "abcd...[truncated 2 bytes]"},
		{desc: "cut inside a 3-byte rune", in: "ab€", max: 3, want: "ab...[truncated 3 bytes]"},
		{desc: "already dropped bytes", in: "abc", max: 5, omitted: 10, want: "abc...[truncated 10 bytes]"},
		{desc: "zero max", in: "abc", max: 0, want: "...[truncated 3 bytes]"},
		{desc: "empty", in: "", max: 0, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := AppendTruncated(nil, []byte(tt.in), tt.max, tt.omitted)
			assert.Equal(t, tt.want, string(got))
			assert.True(t, utf8.Valid(got))
		})
	}
}

// FuzzRedactor places a known secret in a sensitive field, surrounded by
// arbitrary bytes, and checks that it never reaches the output; it also
// checks that arbitrary input never panics and that a body without
// sensitive names passes through unchanged.
func FuzzRedactor(f *testing.F) {
	f.Add([]byte(`{"a":1,`), "password", "S3cretValue", []byte(`}`), uint8(0))
	f.Add([]byte(`user=bob&`), "Token", "abcdefgh123", []byte(`&x=1`), uint8(1))
	f.Add([]byte(`{"p":"{\"x\":1,`), "api_key", "zzzzzzzzzz", []byte(`}"}`), uint8(2))
	f.Add([]byte(`"`), "SECRET", "hunter2hunter2", []byte(``), uint8(3))
	f.Add([]byte(`{"a":[{`), "clientSecret", "Qwertyuiop", []byte(`}]}`), uint8(4))
	f.Add([]byte(`{"password":"`), "passwd", "abcdefghij", []byte(`"`), uint8(5))
	f.Add([]byte(`\`), "authorization", "Bearer0123", []byte(`\`), uint8(6))
	r := NewRedactor(nil)
	f.Fuzz(func(t *testing.T, prefix []byte, name, secret string, suffix []byte, form uint8) {
		out := r.Append(nil, append(append([]byte{}, prefix...), suffix...))
		if !containsSensitiveWord(prefix) && !containsSensitiveWord(suffix) && !bytes.ContainsAny(prefix, `\`) {
			assert.Equal(t, string(prefix)+string(suffix), string(out), "no sensitive name, no change")
		}

		if !isAlnum(secret) || len(secret) < 8 || !isSensitiveName(name) ||
			bytes.Contains(prefix, []byte(secret)) || bytes.Contains(suffix, []byte(secret)) {
			return
		}
		var field string
		switch form % 7 {
		case 0:
			field = `"` + name + `":"` + secret + `"`
		case 1:
			field = name + "=" + secret
		case 2:
			field = `\"` + name + `\":\"` + secret + `\"`
		case 3:
			field = `"` + name + `" : {"v":"` + secret + `"}`
		case 4:
			field = `"` + name + `":["x",` + `"` + secret + `"]`
		case 5:
			field = name + ": " + secret
		case 6:
			field = `"` + escapeFirst(name) + `":"` + secret + `"`
		}
		// Boundaries around the field so the name is a whole word.
		body := append(append(append([]byte{}, prefix...), "\n"+field+"\n"...), suffix...)
		out = r.Append(nil, body)
		assert.NotContains(t, string(out), secret, "input %q", body)
	})
}

func isSensitiveName(name string) bool {
	for _, n := range DefaultRedactFields() {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func containsSensitiveWord(b []byte) bool {
	lower := strings.ToLower(string(b))
	for _, n := range DefaultRedactFields() {
		if strings.Contains(lower, strings.ToLower(n)) {
			return true
		}
	}
	return false
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// escapeFirst writes the first letter of name as a \u escape.
func escapeFirst(name string) string {
	const hex = "0123456789abcdef"
	c := name[0]
	return `\u00` + string(hex[c>>4]) + string(hex[c&0xf]) + name[1:]
}

func BenchmarkRedactorAppend(b *testing.B) {
	body := []byte(`{"name":"Acme Corp","industry":"Manufacturing","billing":{"street":"1 Main St","city":"Springfield"},` +
		`"contacts":[{"first":"Ann","last":"Lee","email":"ann@example.com"}],"password":"hunter2","token":"abc.def.ghi"}`)
	r := NewRedactor(nil)
	dst := make([]byte, 0, 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		dst = r.Append(dst[:0], body)
	}
}
