package accounts

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplyField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		body  string
		key   string
		want  string
		found bool
	}{
		{desc: "JSON id", body: `{"id": "001A00000000000AAA"}`, key: "id", want: "001A00000000000AAA", found: true},
		{desc: "JSON with more members", body: `{"id":"001x","success":true,"errors":[]}`, key: "id", want: "001x", found: true},
		{desc: "JSON key case", body: `{"Id":"001x"}`, key: "id", want: "001x", found: true},
		{desc: "JSON number", body: `{"id":42}`, key: "id", want: "42", found: true},
		{desc: "bare id", body: `{id:001A00000000000AAA}`, key: "id", want: "001A00000000000AAA", found: true},
		{desc: "bare id with spaces", body: " { id : 001A00000000000AAA }\n", key: "id", want: "001A00000000000AAA", found: true},
		{desc: "single quotes", body: `{'id':'001x'}`, key: "id", want: "001x", found: true},
		{desc: "quoted key, bare value", body: `{"id":001x}`, key: "id", want: "001x", found: true},
		{desc: "bare status", body: `{status: success}`, key: "status", want: "success", found: true},
		{desc: "bare status spaced", body: `{status : failure}`, key: "status", want: "failure", found: true},
		{desc: "bare pair among others", body: `{status: failure, reason: locked}`, key: "reason", want: "locked", found: true},
		{desc: "key missing", body: `{status: success}`, key: "id"},
		{desc: "JSON key missing", body: `{"status":"success"}`, key: "id"},
		{desc: "JSON array", body: `[{"id":"x"}]`, key: "id"},
		{desc: "plain text", body: `success`, key: "status"},
		{desc: "empty", body: ``, key: "status"},
		{desc: "unbalanced", body: `{id:x`, key: "id"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, found := replyField([]byte(tt.body), tt.key)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzReplyField(f *testing.F) {
	for _, s := range []string{"001A00000000000AAA", "success", "failure", "a b", "", "x:y", "'", "\x86"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		// Whatever the input, the parser must not panic.
		replyField([]byte(v), "id")
		replyField([]byte("{"+v+"}"), "status")

		// A value the original service could print comes back from every
		// spelling of the answer.
		v = strings.TrimSpace(v)
		if v == "" || !utf8.ValidString(v) || strings.ContainsAny(v, `{}:,"'\`) || strings.IndexFunc(v, unicode.IsControl) >= 0 ||
			strings.IndexFunc(v, unicode.IsSpace) >= 0 {
			return
		}
		quoted, err := json.Marshal(v)
		require.NoError(t, err)
		for _, body := range []string{
			"{id:" + v + "}",
			"{ id : " + v + " }",
			"{'id':'" + v + "'}",
			`{"id": ` + string(quoted) + `}`,
			`{"success":true,"id":` + string(quoted) + `}`,
		} {
			got, found := replyField([]byte(body), "id")
			assert.True(t, found, body)
			assert.Equal(t, v, got, body)
		}
	})
}

func FuzzWindow(f *testing.F) {
	f.Add(`[{"Id":"a"},{"Id":"b"},{"Id":"c"}]`, 1, 1)
	f.Add(`[]`, 0, 5)
	f.Add(` [1, "x", null, {"a":[1,2]}] `, 2, 9)
	f.Add(`[1,2`, 0, 1)
	f.Add(`{"a":1}`, 0, 1)
	f.Add(`[1,2,3]`, 1, -1)
	f.Fuzz(func(t *testing.T, body string, offset, limit int) {
		if offset < 0 || offset > 1<<20 {
			return
		}
		out, p, err := window([]byte(body), offset, limit)
		if err != nil {
			var all []json.RawMessage
			if json.Unmarshal([]byte(body), &all) == nil {
				assert.Equal(t, "null", strings.TrimSpace(body), "a valid array must not fail")
			}
			return
		}
		var all, got []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(body), &all), "only valid arrays are windowed")
		require.NoError(t, json.Unmarshal(out, &got), "output is a JSON array: %s", out)
		start := min(offset, len(all))
		end := len(all)
		if limit >= 0 {
			end = min(start+limit, len(all))
		}
		want := all[start:end]
		require.Len(t, got, len(want))
		for i := range want {
			assert.JSONEq(t, string(want[i]), string(got[i]))
		}
		assert.Equal(t, Placement{Start: offset, Size: len(want), Total: int64(len(all)), More: end < len(all)}, p)
	})
}

func TestWindowRejectsNonArrays(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"a":1}`, `[1,2`, `[1] [2]`, `[1],`, ``, `"x"`} {
		_, _, err := window([]byte(body), 0, 1)
		assert.Error(t, err, body)
	}
}

func BenchmarkWindow(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('[')
	for i := range 500 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"Id":"001A000000000%05d","Name":"Account %d","BillingCity":"Oslo","Total_Assets__c":1250000.5}`, i, i)
	}
	sb.WriteByte(']')
	body := []byte(sb.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, err := window(body, 100, 50); err != nil {
			b.Fatal(err)
		}
	}
}
