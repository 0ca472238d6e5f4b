package jsonspan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArray(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc  string
		want []string // nil: refused
	}{
		{`[]`, []string{}},
		{` [ ] `, []string{}},
		{`[1, "a,]\"", {"b":[1,{"c":"}"}]}, null ,[[]]]`, []string{`1`, `"a,]\""`, `{"b":[1,{"c":"}"}]}`, `null`, `[[]]`}},
		{`["\\"]`, []string{`"\\"`}},
		{`[1,]`, nil}, {`[1`, nil}, {`[1] [2]`, nil}, {`{"a":1}`, nil}, {``, nil}, {`[{]`, nil}, {`[{"a":1]]`, nil},
		{`["unterminated]`, nil}, {`[,1]`, nil}, {`[1 2]`, nil},
	}
	for _, tt := range tests {
		got := []string{}
		ok := Array([]byte(tt.doc), func(e []byte) { got = append(got, string(e)) })
		if tt.want == nil {
			assert.False(t, ok, tt.doc)
			_, ok = Count([]byte(tt.doc))
			assert.False(t, ok, tt.doc)
			continue
		}
		require.True(t, ok, tt.doc)
		assert.Equal(t, tt.want, got, tt.doc)
		n, ok := Count([]byte(tt.doc))
		assert.True(t, ok)
		assert.Equal(t, len(tt.want), n)
	}
}

func TestObject(t *testing.T) {
	t.Parallel()
	var got []string
	ok := Object([]byte(` {"id" : "8", "u\"rl":{"x":[1]}, "n":1.10 } `), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	require.True(t, ok)
	assert.Equal(t, []string{`"id"="8"`, `"u\"rl"={"x":[1]}`, `"n"=1.10`}, got)
	for _, doc := range []string{`{}`, ` { } `} {
		assert.True(t, Object([]byte(doc), func(_, _ []byte) { t.Error("no member") }), doc)
	}
	for _, doc := range []string{`{"a"}`, `{"a":}`, `{a:1}`, `{"a":1,}`, `[1]`, `{"a":1} x`, `{"a":1`} {
		assert.False(t, Object([]byte(doc), func(_, _ []byte) {}), doc)
	}
	k, ok := Key([]byte(`"url"`))
	assert.True(t, ok)
	assert.Equal(t, "url", k)
	_, ok = Key([]byte(`"u\u0072l"`))
	assert.False(t, ok)
}

// FuzzArray holds Array to encoding/json: a valid JSON array yields its
// elements as json.RawMessage does, and nothing makes it panic.
func FuzzArray(f *testing.F) {
	for _, s := range []string{`[1,"x",{"a":[true,null]}]`, `[]`, `["\\\""]`, `[1,`, `{"a":1}`, `[[[]]]`, `[" \" ] "]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var got [][]byte
		ok := Array([]byte(doc), func(e []byte) { got = append(got, e) })
		n, counted := Count([]byte(doc))
		if ok != counted || ok && n != len(got) {
			t.Fatalf("Array %v %d, Count %v %d", ok, len(got), counted, n)
		}
		var want []json.RawMessage
		if json.Unmarshal([]byte(doc), &want) != nil || strings.TrimSpace(doc) == "null" {
			return
		}
		if !ok {
			t.Fatalf("valid array %q refused", doc)
		}
		if len(got) != len(want) {
			t.Fatalf("%d elements, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], bytes.TrimSpace(want[i])) {
				t.Fatalf("element %d = %q, want %q", i, got[i], want[i])
			}
		}
	})
}

// FuzzObject holds Object to encoding/json for valid objects.
func FuzzObject(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[{"c":"}"}]}`, `{}`, `{"\\"":"\""}`, `{"a":}`, `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var keys, values [][]byte
		ok := Object([]byte(doc), func(k, v []byte) { keys, values = append(keys, k), append(values, v) })
		var want map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &want) != nil || want == nil {
			return // not checked beyond not panicking: the walk checks structure only
		}
		if !ok {
			t.Fatalf("valid object %q refused", doc)
		}
		got := map[string]string{}
		for i, k := range keys {
			var key string
			if err := json.Unmarshal(k, &key); err != nil {
				t.Fatalf("key %q is not a JSON string", k)
			}
			got[key] = string(values[i])
		}
		if len(want) != len(got) {
			return // duplicate keys: the last wins in both, counts differ
		}
		for k, v := range want {
			if got[k] != string(bytes.TrimSpace(v)) {
				t.Fatalf("member %q = %q, want %q", k, got[k], v)
			}
		}
	})
}

func BenchmarkCount(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 20 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"Id":"001000000000001AAA","Name":"Account \"1\"","Description":"Record number 1 of the load test","Total_Assets__c":1000000.5,"Phone":"(336) 222-7000","Site":null}`)
	}
	sb.WriteByte(']')
	doc := []byte(sb.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if n, ok := Count(doc); !ok || n != 20 {
			b.Fatal(n, ok)
		}
	}
}
