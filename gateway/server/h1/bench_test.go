package h1

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
