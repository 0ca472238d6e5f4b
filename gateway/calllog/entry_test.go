package calllog

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/upstreams"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func goldenEntries() []struct {
	desc string
	e    Entry
	body string
} {
	at := time.Date(2024, 3, 9, 14, 5, 7, 123456789, time.FixedZone("CET", 3600))
	return []struct {
		desc string
		e    Entry
		body string
	}{
		{
			desc: "full",
			e: Entry{
				Time: at, Text: "GET accounts", UserID: "u-42", TraceID: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
				TotalTime: 12.34567, Method: "HTTPGET", Path: "/v1/accounts/001", Route: "/{version}/accounts/{id}",
				Version: "v1", Status: 200, UpstreamTime: 10.5, SpanID: trace.SpanID{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
				TraceFlags: trace.FlagsSampled, APIUsage: upstreams.Usage{Used: 18, Limit: 15000},
			},
			body: "",
		},
		{
			desc: "empty_ids",
			e: Entry{
				Time: at, Text: "unknown", TotalTime: 0.5, Method: "HTTPPOST", Path: "/v9/nope",
				ResponseCode: "URL_INVALID", Status: 404, Duplicate: true,
			},
			body: `{"name":"Acme","password":"[REDACTED]"}`,
		},
		{
			desc: "awkward_text",
			e: Entry{
				Time: at, Text: "line1\nline2\r", UserID: "ünï \"q\"", TotalTime: 1000, Method: "HTTPPUT",
				Path: "/v2/a\tb", Status: 500, UpstreamTime: 999.9999,
			},
			body: "{\n \"a\": \"x\\ny\"\u2028}\xff",
		},
	}
}

func TestAppendLineGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range goldenEntries() {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := AppendLine(nil, &tt.e, []byte(tt.body))
			assert.NotContains(t, string(got), "\n")
			want := golden(t, "line_"+tt.desc+".golden", got)
			assert.Equal(t, want, string(got))
		})
	}
}

func TestAppendJSONGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range goldenEntries() {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := AppendJSON(nil, &tt.e, []byte(tt.body))
			require.True(t, json.Valid(got), "%s", got)
			assert.NotContains(t, string(got), "\n")
			want := golden(t, "json_"+tt.desc+".golden", got)
			assert.JSONEq(t, want, string(got))

			var decoded map[string]any
			require.NoError(t, json.Unmarshal(got, &decoded))
			assert.Equal(t, tt.e.Duplicate, decoded["duplicate"])
			assert.Equal(t, cleanUTF8(tt.body), decoded["body"])
		})
	}
}

func TestAppendMillis(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   float64
		want string
	}{
		{desc: "integer", in: 42, want: "42"},
		{desc: "rounded to three decimals", in: 1.23456, want: "1.235"},
		{desc: "trailing zeros dropped", in: 1.5, want: "1.5"},
		{desc: "tiny", in: 0.0004, want: "0"},
		{desc: "negative zero", in: -0.0001, want: "0"},
		{desc: "large", in: 60000.0001, want: "60000"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(appendMillis(nil, tt.in)))
		})
	}
}

// FuzzAppendJSON checks that any text, ids and body give one valid JSON line
// that decodes back to the same (UTF-8-cleaned) strings.
func FuzzAppendJSON(f *testing.F) {
	f.Add("text", "user", "trace", "/v1/x", []byte(`{"a":1}`), 1.5)
	f.Add("", "", "", "", []byte{}, 0.0)
	f.Add("\x00\x1f\"\\", "\u2028", "\xff", "\n", []byte("\xc3"), -3.0)
	f.Fuzz(func(t *testing.T, text, user, trace, path string, body []byte, total float64) {
		e := Entry{Text: text, UserID: user, TraceID: trace, Path: path, TotalTime: total}
		got := AppendJSON(nil, &e, body)
		require.True(t, json.Valid(got), "%q", got)
		var decoded struct {
			Text string `json:"text"`
			Body string `json:"body"`
		}
		require.NoError(t, json.Unmarshal(got, &decoded))
		assert.Equal(t, cleanUTF8(text), decoded.Text)
		assert.Equal(t, cleanUTF8(string(body)), decoded.Body)

		line := AppendLine(nil, &e, body)
		assert.NotContains(t, string(line), "\n")
		assert.True(t, utf8.Valid(line))
	})
}

// cleanUTF8 replaces each invalid byte by U+FFFD, as encoding/json does.
func cleanUTF8(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

func BenchmarkAppendLine(b *testing.B) {
	e := goldenEntries()[0].e
	body := []byte(`{"name":"Acme","industry":"Manufacturing"}`)
	dst := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendLine(dst[:0], &e, body)
	}
}

// golden returns the content of testdata/name, first writing got there when
// the test runs with -update.
func golden(t *testing.T, name string, got []byte) string {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.TrimSuffix(string(want), "\n")
}
