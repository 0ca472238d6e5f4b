package h1

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkRoundTrip sends a GET for a 14 KB JSON answer and reads it, on
// this transport and on net/http's, against the same loopback server.
func BenchmarkRoundTrip(b *testing.B) {
	payload := []byte(strings.Repeat(`{"Id":"001000000000001AAA","Name":"Account"},`, 320))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(payload)
	}))
	defer srv.Close()
	std := http.DefaultTransport.(*http.Transport).Clone()
	std.ReadBufferSize = bufferSize
	for _, tc := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"h1", New(Options{Fallback: std})},
		{"net-http", std},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(payload)))
			var buf bytes.Buffer
			for b.Loop() {
				req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/account/", nil)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := tc.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				if _, err := buf.ReadFrom(resp.Body); err != nil {
					b.Fatal(err)
				}
				_ = resp.Body.Close()
			}
		})
	}
}
