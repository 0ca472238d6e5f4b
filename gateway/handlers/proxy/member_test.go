package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, src, name, want string
		noMember, syntax      bool
	}{
		{desc: "records after scalars", src: `{"totalSize":2,"done":true,"records":[{"Id":"1"},{"Id":"2"}]}`, name: "records", want: `[{"Id":"1"},{"Id":"2"}]`},
		{desc: "first member", src: `{"records":[],"done":true}`, name: "records", want: `[]`},
		{desc: "null member", src: `{"records":null}`, name: "records", want: `null`},
		{desc: "nested same name is not top level", src: `{"a":{"records":1},"records":2}`, name: "records", want: `2`},
		{desc: "garbage after the member is not read", src: `{"records":[1],"x":`, name: "records", want: `[1]`},
		{desc: "missing", src: `{"done":true}`, name: "records", noMember: true},
		{desc: "array", src: `[{"records":1}]`, name: "records", noMember: true},
		{desc: "scalar", src: `"records"`, name: "records", noMember: true},
		{desc: "escaped key", src: `{"rec\u006frds":[3]}`, name: "records", want: `[3]`},
		{desc: "braces inside strings", src: `{"a":"}]{\"","records":1}`, name: "records", want: `1`},
		{desc: "missing comma before", src: `{"done":true "records":[]}`, name: "records", syntax: true},
		{desc: "unclosed container before", src: `{"a":[1,2,"records":[]}`, name: "records", syntax: true},
		{desc: "unclosed string", src: `{"a":"x`, name: "records", syntax: true},
		{desc: "empty", src: ``, name: "records", noMember: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := member([]byte(tt.src), tt.name)
			switch {
			case tt.noMember:
				assert.ErrorIs(t, err, errNoMember)
			case tt.syntax:
				require.Error(t, err)
				assert.NotErrorIs(t, err, errNoMember)
			default:
				require.NoError(t, err)
				assert.JSONEq(t, tt.want, string(got))
			}
		})
	}
}

// FuzzMember checks member against encoding/json on valid input: a member
// of a valid object is found and is valid JSON, an absent one or a value
// that is not an object is errNoMember. On any input it must not panic and
// must return a part of src.
func FuzzMember(f *testing.F) {
	for _, s := range []string{`{"records":[1,2]}`, `{"a":"}","records":{"b":[]}}`, `{"a":1}`, `[]`, `{"records":"\u00e9"}`, `{`, ``} {
		f.Add(s, "records")
	}
	f.Fuzz(func(t *testing.T, src, name string) {
		got, err := member([]byte(src), name)
		if err == nil && !strings.Contains(src, string(got)) {
			t.Fatalf("member(%q, %q) = %q, not a part of src", src, name, got)
		}
		if !json.Valid([]byte(src)) {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(src), &obj) != nil {
			if !errors.Is(err, errNoMember) {
				t.Fatalf("member(%q, %q) = %q, %v on a value that is not an object", src, name, got, err)
			}
			return
		}
		if _, ok := obj[name]; !ok {
			if !errors.Is(err, errNoMember) {
				t.Fatalf("member(%q, %q) = %q, %v; want errNoMember", src, name, got, err)
			}
			return
		}
		if err != nil || !json.Valid(got) {
			t.Fatalf("member(%q, %q) = %q, %v on a valid object holding it", src, name, got, err)
		}
	})
}

func BenchmarkMember(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"totalSize":200,"done":true,"nextRecordsUrl":"/services/data/v35.0/query/01gD-2000","records":[`)
	for i := range 200 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"attributes":{"type":"Contact","url":"/x/%d"},"Id":"003%015d","LastName":"Name %d","Email":null}`, i, i, i)
	}
	sb.WriteString(`]}`)
	src := []byte(sb.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := member(src, "records"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTargetURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, upstreamPath, request, want string
		vars                              map[string]string
		pass                              []string
		badParam                          bool
	}{
		{desc: "literal", upstreamPath: "/a/b", request: "/v1/x", want: "http://h/base/a/b"},
		{desc: "path param escaped", upstreamPath: "/a/{id}/c", vars: map[string]string{"id": "x%2Fy%20z"}, request: "/v1/x", want: "http://h/base/a/x%2Fy%20z/c"},
		{desc: "fixed query kept verbatim", upstreamPath: "/q?q=SELECT+Id+FROM+Contact", request: "/v1/x?q=DROP", want: "http://h/base/q?q=SELECT+Id+FROM+Contact"},
		{desc: "query param escaped", upstreamPath: "/q?of={id}", vars: map[string]string{"id": "a&b=c"}, request: "/v1/x", want: "http://h/base/q?of=a%26b%3Dc"},
		{desc: "passed query after fixed", upstreamPath: "/q?a=1", pass: []string{"limit", "name"}, request: "/v1/x?name=a+b&limit=2&limit=3&other=1", want: "http://h/base/q?a=1&limit=2&limit=3&name=a+b"},
		{desc: "passed query alone", upstreamPath: "/q", pass: []string{"limit"}, request: "/v1/x?limit=%26", want: "http://h/base/q?limit=%26"},
		{desc: "dot dot refused", upstreamPath: "/a/{id}", vars: map[string]string{"id": ".."}, request: "/v1/x", badParam: true},
		{desc: "encoded dot dot refused", upstreamPath: "/a/{id}", vars: map[string]string{"id": "%2E%2E"}, request: "/v1/x", badParam: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var params []string
			for k := range tt.vars {
				params = append(params, k)
			}
			tg, err := parseTarget(tt.upstreamPath, params, tt.pass, "")
			require.NoError(t, err)
			r := mux.SetURLVars(httptest.NewRequest("GET", tt.request, nil), tt.vars)
			got, err := tg.url("http://h/base/", r)
			if tt.badParam {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseTargetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ desc, upstreamPath string }{
		{desc: "relative", upstreamPath: "a/b"},
		{desc: "unclosed", upstreamPath: "/a/{id"},
		{desc: "unknown param", upstreamPath: "/a/{other}"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := parseTarget(tt.upstreamPath, []string{"id"}, nil, "")
			assert.Error(t, err)
		})
	}
}

// FuzzTargetURL checks that a path parameter never leaves its segment: the
// built URL has the template's number of path segments and no query unless
// the template has one.
func FuzzTargetURL(f *testing.F) {
	for _, s := range []string{"abc", "a/b", "a?b=c", "..", "%2F", "a#b", "é"} {
		f.Add(s)
	}
	tg, err := parseTarget("/a/{id}/c", []string{"id"}, nil, "")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, v string) {
		r := mux.SetURLVars(httptest.NewRequest("GET", "/v1/x", nil), map[string]string{"id": v})
		got, err := tg.url("http://h", r)
		if err != nil {
			return
		}
		rest := strings.TrimPrefix(got, "http://h")
		if strings.ContainsAny(rest, "?#") || strings.Count(rest, "/") != 3 || !strings.HasSuffix(rest, "/c") {
			t.Fatalf("parameter %q escaped its segment: %q", v, got)
		}
	})
}

func BenchmarkTargetURL(b *testing.B) {
	tg, err := parseTarget("/services/data/v35.0/sobjects/{type}/describe?x=1", []string{"type"}, []string{"limit"}, "")
	require.NoError(b, err)
	r := mux.SetURLVars(httptest.NewRequest("GET", "/v1/sobjects/Contact?limit=5", nil), map[string]string{"type": "Contact"})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tg.url("http://127.0.0.1:8080/data", r); err != nil {
			b.Fatal(err)
		}
	}
}
