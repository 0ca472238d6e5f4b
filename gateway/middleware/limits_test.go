package middleware

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeaderBytesCountsTheWireHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, raw string
	}{
		{desc: "request line only", raw: "GET / HTTP/1.1\r\n"},
		{desc: "host", raw: "GET /v1/accounts?limit=5 HTTP/1.1\r\nHost: gw.example.test\r\n"},
		{desc: "repeated header", raw: "POST /v2/accounts HTTP/1.1\r\nHost: gw\r\nAccept: a\r\nAccept: b\r\nContent-Length: 0\r\n"},
		{desc: "long value", raw: "GET /v2/x HTTP/1.1\r\nHost: gw\r\nX-Padding: " + strings.Repeat("p", 5000) + "\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tt.raw + "\r\n")))
			require.NoError(t, err)
			assert.Equal(t, len(tt.raw), HeaderBytes(r))
		})
	}
}

func BenchmarkHeaderBytes(b *testing.B) {
	raw := "GET /v2/accounts?limit=50&offset=100 HTTP/1.1\r\nHost: gw.example.test\r\nAuthorization: Bearer " +
		strings.Repeat("t", 600) + "\r\nAccept: application/json\r\nUser-Agent: client/1.0\r\ntraceparent: 00-" +
		strings.Repeat("a", 32) + "-" + strings.Repeat("b", 16) + "-01\r\n\r\n"
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if HeaderBytes(r) == 0 {
			b.Fatal("no bytes")
		}
	}
}
