package h1server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func BenchmarkServe(b *testing.B) {
	body := []byte(`{"items":[` + strings.Repeat(`{"id":"0012345","name":"Account name","state":"open"},`, 260) + `{}]}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
	b.Run("h1", func(b *testing.B) {
		ts := startServer(b, h, Options{})
		benchClient(b, ts.addr)
	})
	b.Run("net/http", func(b *testing.B) {
		ref := httptest.NewServer(h)
		defer ref.Close()
		benchClient(b, strings.TrimPrefix(ref.URL, "http://"))
	})
}

func benchClient(b *testing.B, addr string) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	req := []byte("GET /items HTTP/1.1\r\nHost: bench\r\n\r\n")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := nc.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkReadRequest reads a typical API GET head of 8 fields.
func BenchmarkReadRequest(b *testing.B) {
	head := "GET /v1/accounts/0012345?fields=name,state HTTP/1.1\r\nHost: api.example.com\r\n" +
		"User-Agent: client/1.0\r\nAccept: application/json\r\nAccept-Encoding: gzip\r\n" +
		"Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln\r\n" +
		"Traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n" +
		"X-Request-Id: 9f1c2d3e\r\nConnection: keep-alive\r\n\r\n"
	for _, bc := range []struct {
		desc string
		read func(*bufio.Reader) (*http.Request, error)
	}{{"h1", readRequest}, {"net/http", http.ReadRequest}} {
		b.Run(bc.desc, func(b *testing.B) {
			sr := strings.NewReader(head)
			br := bufio.NewReaderSize(sr, 4<<10)
			b.ReportAllocs()
			for b.Loop() {
				sr.Reset(head)
				br.Reset(sr)
				if _, err := bc.read(br); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
