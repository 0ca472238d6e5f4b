package h1client

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// poison is the body of every answer no request asked for.
const poison = "POISON"

// poisonAnswer is a whole answer no request asked for.
const poisonAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n" + poison

// unsolicited are the ways a backend writes more than the answer asked
// for on a kept-alive connection. answer is the answer to a request whose
// tag is the body it must read; extra is what follows it.
func unsolicited() []struct {
	desc, method string
	answer       func(tag string) string
	extra        string
} {
	plain := func(tag string) string {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(tag), tag)
	}
	chunked := func(tag string) string {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(tag), tag)
	}
	trailer := func(tag string) string {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n%x\r\n%s\r\n0\r\nX-Sum: 1\r\n\r\n",
			len(tag), tag)
	}
	noContent := func(string) string { return "HTTP/1.1 204 No Content\r\n\r\n" }
	return []struct {
		desc, method string
		answer       func(tag string) string
		extra        string
	}{
		{desc: "a double answer", method: http.MethodGet, answer: plain, extra: poisonAnswer},
		{desc: "a double answer to a request with a body", method: http.MethodPut, answer: plain, extra: poisonAnswer},
		{desc: "a 204 with a body", method: http.MethodDelete, answer: noContent, extra: poisonAnswer},
		{desc: "bytes after a chunked body", method: http.MethodGet, answer: chunked, extra: poisonAnswer},
		{desc: "bytes after a chunked body's trailer", method: http.MethodGet, answer: trailer, extra: poisonAnswer},
		{desc: "a late 408", method: http.MethodGet, answer: plain,
			extra: "HTTP/1.1 408 Request Timeout\r\nContent-Length: 6\r\nConnection: close\r\n\r\n" + poison},
		{desc: "stray bytes", method: http.MethodPut, answer: plain, extra: "\r\n" + poison},
	}
}

// hostileBackend answers each request on a raw connection. A request for
// /extra/<tag> is answered by answer(tag) and then the extra bytes: in the
// same write, or, for /late/<tag>, once the test says the client has read
// the answer (proceed), reporting when they are written (written). Any
// other /<tag> is answered plainly. It notes every request that arrives on
// a connection after that connection wrote extra bytes.
type hostileBackend struct {
	addr             string
	answer           func(tag string) string
	extra            string
	proceed, written chan struct{}
	mu               sync.Mutex
	afterExtra       []string // requests read on a connection that had written extra bytes
}

func newHostileBackend(t *testing.T, answer func(string) string, extra string) *hostileBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	b := &hostileBackend{addr: ln.Addr().String(), answer: answer, extra: extra,
		proceed: make(chan struct{}), written: make(chan struct{}, 1)}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range open {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, nc)
			mu.Unlock()
			wg.Go(func() { b.serve(nc) })
		}
	})
	return b
}

func (b *hostileBackend) serve(nc net.Conn) {
	defer nc.Close()
	br := bufio.NewReader(nc)
	sentExtra := false
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		if sentExtra {
			b.mu.Lock()
			b.afterExtra = append(b.afterExtra, req.URL.Path)
			b.mu.Unlock()
		}
		kind, tag, _ := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/")
		switch kind {
		case "extra":
			_, err = io.WriteString(nc, b.answer(tag)+b.extra)
			sentExtra = true
		case "late":
			if _, err = io.WriteString(nc, b.answer(tag)); err == nil {
				<-b.proceed
				_, err = io.WriteString(nc, b.extra)
				sentExtra = true
				b.written <- struct{}{}
			}
		default:
			_, err = fmt.Fprintf(nc, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(kind), kind)
		}
		if err != nil {
			return
		}
	}
}

// reused lists the requests that arrived on a connection after it had
// written extra bytes.
func (b *hostileBackend) reused() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.afterExtra...)
}

// exchange sends method to path with a body for PUT and POST and returns
// the answer's body, or the error.
func exchange(tr http.RoundTripper, method, u string) (string, error) {
	var body io.Reader
	if method == http.MethodPut || method == http.MethodPost {
		body = strings.NewReader(`{"n":1}`)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u, body)
	if err != nil {
		return "", err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestUnsolicitedBytesNeverAnswerTheNextRequest sends a request answered
// with more than its answer, then more requests on the same transport:
// each must read its own answer, and no request may be sent on the
// connection that carried the extra bytes, whether they came with the
// answer or after the client had read it.
func TestUnsolicitedBytesNeverAnswerTheNextRequest(t *testing.T) {
	t.Parallel()
	for _, tt := range unsolicited() {
		for _, late := range []bool{false, true} {
			desc := tt.desc + ", with the answer"
			if late {
				desc = tt.desc + ", after it"
			}
			t.Run(desc, func(t *testing.T) {
				t.Parallel()
				b := newHostileBackend(t, tt.answer, tt.extra)
				tr, _ := newTransport(t, Options{})
				base := "http://" + b.addr
				kind := "extra"
				if late {
					kind = "late"
				}
				got, err := exchange(tr, tt.method, base+"/"+kind+"/first")
				require.NoError(t, err)
				if tt.method != http.MethodDelete {
					assert.Equal(t, "first", got)
				}
				if late {
					b.proceed <- struct{}{}
					<-b.written
				}
				for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodGet, http.MethodPost, http.MethodPut} {
					tag := strings.ToLower(method) + fmt.Sprint(len(method))
					got, err := exchange(tr, method, base+"/"+tag)
					require.NoError(t, err, method)
					assert.Equal(t, tag, got, "%s read another request's answer", method)
				}
				assert.Empty(t, b.reused(), "requests sent on a connection that had written extra bytes")
			})
		}
	}
}

// An answer below 100 is not an interim answer: reading it as one would
// take its body for the next answer.
func TestStatusBelow100IsMalformed(t *testing.T) {
	t.Parallel()
	b := newHostileBackend(t, func(string) string {
		return "HTTP/1.1 099 Low\r\nContent-Length: " + fmt.Sprint(len(poisonAnswer)) + "\r\n\r\n" + poisonAnswer
	}, "")
	tr, _ := newTransport(t, Options{})
	got, err := exchange(tr, http.MethodGet, "http://"+b.addr+"/extra/x")
	require.ErrorIs(t, err, ErrMalformedAnswer, "answered %q", got)
	got, err = exchange(tr, http.MethodGet, "http://"+b.addr+"/next")
	require.NoError(t, err)
	assert.Equal(t, "next", got)
}

// An answer with both Content-Length and Transfer-Encoding is read by its
// chunks, as net/http reads it, and its connection is not used again: the
// backend and the gateway disagree on where its answers end.
func TestLengthAndChunkedAnswerClosesTheConnection(t *testing.T) {
	t.Parallel()
	b := newHostileBackend(t, func(tag string) string {
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(tag), tag)
	}, "")
	tr, _ := newTransport(t, Options{})
	got, err := exchange(tr, http.MethodGet, "http://"+b.addr+"/extra/both")
	require.NoError(t, err)
	assert.Equal(t, "both", got)
	assert.Zero(t, idleCount(tr, "http://"+b.addr))
}
