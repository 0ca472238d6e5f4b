package h1client

import (
	"bufio"
	"bytes"
	"io"
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

// BenchmarkReadAnswer parses a typical backend answer head and its small
// body, with readResponse and with http.ReadResponse.
func BenchmarkReadAnswer(b *testing.B) {
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\n" +
		"X-Request-Id: 4bf92f3577b34da6a3ce929d0e0e4736\r\nCache-Control: no-store\r\nContent-Length: 7\r\n\r\n{\"a\":1}")
	req, err := http.NewRequest(http.MethodGet, "http://backend.test/", nil)
	if err != nil {
		b.Fatal(err)
	}
	in := bytes.NewReader(answer)
	br := bufio.NewReaderSize(in, bufferSize)
	buf := make([]byte, 64)
	for _, tc := range []struct {
		name string
		read func() (io.Reader, error)
	}{
		{"h1", func() (io.Reader, error) {
			_, src, err := readResponse(br, req)
			return &src, err
		}},
		{"net-http", func() (io.Reader, error) {
			resp, err := http.ReadResponse(br, req)
			if err != nil {
				return nil, err
			}
			return resp.Body, nil
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in.Reset(answer)
				br.Reset(in)
				body, err := tc.read()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(body, buf[:7]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
