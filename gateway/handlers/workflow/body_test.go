package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/envelope"
	engine "github.com/restgate/gateway/upstreams/workflow"
)

func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		body   string
		detail string // "" means accepted
		want   completion
	}{
		{desc: "disposition and variables", body: `{"disposition":"complete","variables":[{"name":"a","value":1.50}]}`,
			want: completion{Disposition: "complete", Variables: []engine.Variable{{Name: "a", Value: json.RawMessage(`1.50`)}}}},
		{desc: "a typed variable", body: `{"variables":[{"name":"d","type":"date","value":"2013-04-17"}]}`,
			want: completion{Variables: []engine.Variable{{Name: "d", Type: "date", Value: json.RawMessage(`"2013-04-17"`)}}}},
		{desc: "surrounding space", body: " \n{}\t", want: completion{}},
		{desc: "duplicate member: the last one is what is sent", body: `{"disposition":"x","disposition":"complete"}`,
			want: completion{Disposition: "complete"}},
		{desc: "unknown member", body: `{"disposition":"complete","note":1}`, detail: `unknown member "note"`},
		{desc: "unknown member with escapes", body: `{"n\u00e9\"e":1}`, detail: `unknown member "né\"e"`},
		{desc: "long unknown member is clipped", body: `{"` + strings.Repeat("é", 100) + `":1}`,
			detail: `unknown member "` + strings.Repeat("é", 32) + `..."`},
		{desc: "unknown nested member", body: `{"variables":[{"name":"a","scope":"local"}]}`, detail: `unknown member "scope"`},
		{desc: "wrong type of a nested member", body: `{"variables":[{"name":5}]}`, detail: `member "variables.name" must be a string`},
		{desc: "variables not an array", body: `{"variables":{}}`, detail: `member "variables" must be an array`},
		{desc: "array", body: `[{}]`, detail: "the body must be a JSON object"},
		{desc: "null", body: `null`, detail: "the body must be a JSON object"},
		{desc: "string", body: `"x"`, detail: "the body must be a JSON object"},
		{desc: "trailing data", body: `{} {}`, detail: "the body is not valid JSON"},
		{desc: "cut short", body: `{"disposition":`, detail: "the body is not valid JSON"},
		{desc: "too deep", body: `{"variables":[{"name":"a","value":[[[[[[1]]]]]]}]}`, detail: "nested too deeply"},
		{desc: "at the depth limit", body: `{"variables":[{"name":"a","value":[[[[1]]]]}]}`,
			want: completion{Variables: []engine.Variable{{Name: "a", Value: json.RawMessage(`[[[[1]]]]`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var got completion
			err := decodeStrict([]byte(tt.body), 7, &got)
			if tt.detail == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, envelope.JSONSerializationFailed, e.ID)
			assert.Contains(t, e.Detail, tt.detail)
		})
	}
}

func TestStringOrNull(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		raw  string
		want bool
	}{
		{"string", `"a"`, true},
		{"null", `null`, true},
		{"spaced null", ` null `, true},
		{"number", `1`, false},
		{"object", `{}`, false},
		{"false", `false`, false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, stringOrNull(json.RawMessage(tt.raw)))
		})
	}
}

// FuzzDecodeStrict: whatever the body, the decoder either accepts one
// valid JSON object or answers a JSON_SERIALIZATION_FAILED whose detail is
// short valid UTF-8; it never panics.
func FuzzDecodeStrict(f *testing.F) {
	for _, seed := range []string{
		`{"disposition":"complete","variables":[{"name":"a","value":{"b":[1,2,null]}}]}`,
		`{"disposition":"saveforlater"}`, `{}`, `[]`, `null`, ``, `{"x":1}`, `{"variables":[{"name":1}]}`,
		`{"\xff":1}`, `{"variables":[[[[[[[[[[[[]]]]]]]]]]]]}`, `{"disposition":"a"} x`, `{"disposition":1e999}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got completion
		err := decodeStrict(body, 8, &got)
		if err == nil {
			trimmed := bytes.TrimSpace(body)
			if !json.Valid(body) || len(trimmed) == 0 || trimmed[0] != '{' {
				t.Fatalf("accepted %q, which is not one JSON object", body)
			}
			return
		}
		var e *envelope.Error
		if !errors.As(err, &e) || e.ID != envelope.JSONSerializationFailed {
			t.Fatalf("error %v is not JSON_SERIALIZATION_FAILED", err)
		}
		if !utf8.ValidString(e.Detail) || len(e.Detail) > 400 {
			t.Fatalf("detail %q is not short UTF-8", e.Detail)
		}
	})
}

func BenchmarkDecodeStrict(b *testing.B) {
	body := []byte(`{"disposition":"saveforlater","variables":[{"name":"note","value":"missing payslip"},{"name":"amount","value":25000}]}`)
	b.ReportAllocs()
	for b.Loop() {
		var got completion
		if err := decodeStrict(body, 64, &got); err != nil {
			b.Fatal(err)
		}
	}
}
