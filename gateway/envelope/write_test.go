package envelope

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

var fixed = time.Date(2026, 11, 22, 1, 21, 45, 123_000_000, time.UTC)

func TestEnvelopeGolden(t *testing.T) {
	t.Parallel()
	meta := Meta{Time: fixed, TotalMillis: 3.2174, UserID: "005xx0000012345", MapKeys: true, DropNulls: true}
	golden(t, "success.json", AppendSuccess(nil, []byte(`{"id":"001"}`), meta))
	golden(t, "empty_result.json", AppendSuccess(nil, nil, meta))
	omit := meta
	omit.OmitFlags = true
	golden(t, "listing.json", AppendSuccess(nil, []byte(`[]`), omit))
	r := NewCatalog().Render(New(QueryOperationFailed), CallArgs{UserID: "005xx0000012345", TraceID: "t", TotalTime: "3.217", Method: "HTTPGET", Path: "/v1/query", Body: ""})
	golden(t, "error_hidden.json", AppendError(nil, r, false, meta))
	golden(t, "error_exposed.json", AppendError(nil, r, true, meta))
}

func FuzzFormat(f *testing.F) {
	f.Add("{0} {1} {", "a", "b")
	f.Fuzz(func(t *testing.T, tmpl, a, b string) {
		_ = Format(tmpl, []string{a, b})
	})
}

func BenchmarkAppendSuccess(b *testing.B) {
	b.ReportAllocs()
	result := []byte(`[{"id":"001","name":"Acme"}]`)
	meta := Meta{Time: fixed, TotalMillis: 1.5, UserID: "anonymous", MapKeys: true, DropNulls: true}
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		buf = AppendSuccess(buf[:0], result, meta)
	}
}
