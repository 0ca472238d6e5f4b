package app

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// cannedBackend is a backend that allocates nothing per request, so that
// the whole-path benchmarks and the allocation pin count the gateway's
// work only: a TCP listener whose connections each read requests up to the
// end of their head and answer every one with the same bytes. It serves
// bodiless requests only (GET, HEAD's framing is not needed here): a
// request body would be read as the next request's head.
type cannedBackend struct {
	ln     net.Listener
	answer []byte
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

// newCannedBackend serves a 200 of body as application/json, with usage in
// Sforce-Limit-Info when not empty, until the test ends; it returns the
// backend's base URL.
func newCannedBackend(tb testing.TB, body []byte, usage string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	if usage != "" {
		head += "Sforce-Limit-Info: " + usage + "\r\n"
	}
	b := &cannedBackend{ln: ln, answer: append([]byte(head+"\r\n"), body...), conns: make(map[net.Conn]struct{})}
	b.wg.Go(b.accept)
	tb.Cleanup(b.close)
	return "http://" + ln.Addr().String()
}

func (b *cannedBackend) accept() {
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.mu.Lock()
		b.conns[c] = struct{}{}
		b.mu.Unlock()
		b.wg.Go(func() { b.serve(c) })
	}
}

// serve answers every request head read from c, pipelined ones included.
func (b *cannedBackend) serve(c net.Conn) {
	defer func() {
		b.mu.Lock()
		delete(b.conns, c)
		b.mu.Unlock()
		_ = c.Close()
	}()
	buf := make([]byte, 16<<10)
	n := 0
	for {
		m, err := c.Read(buf[n:])
		n += m
		for {
			end := bytes.Index(buf[:n], headEnd)
			if end < 0 {
				break
			}
			if _, err := c.Write(b.answer); err != nil {
				return
			}
			n = copy(buf, buf[end+len(headEnd):n])
		}
		if err != nil || n == len(buf) {
			return
		}
	}
}

var headEnd = []byte("\r\n\r\n")

func (b *cannedBackend) close() {
	_ = b.ln.Close()
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// discardWriter is an http.ResponseWriter reused from request to request
// that keeps the status and counts the body's bytes, keeping the first
// few for checks: the benchmarks' client side, which allocates nothing
// once its header map has grown.
type discardWriter struct {
	header http.Header
	status int
	n      int
	// start and end are the body's first and last bytes, up to their
	// capacity.
	start, end []byte
}

func newDiscardWriter() *discardWriter {
	return &discardWriter{header: make(http.Header, 16), start: make([]byte, 0, 512), end: make([]byte, 0, 512)}
}

// reset readies the writer for the next request.
func (d *discardWriter) reset() {
	clear(d.header)
	d.status, d.n, d.start, d.end = 0, 0, d.start[:0], d.end[:0]
}

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) WriteHeader(status int) {
	if d.status == 0 {
		d.status = status
	}
}

func (d *discardWriter) Write(p []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	d.n += len(p)
	d.start = append(d.start, p[:min(len(p), cap(d.start)-len(d.start))]...)
	if len(p) >= cap(d.end) {
		d.end = append(d.end[:0], p[len(p)-cap(d.end):]...)
	} else {
		keep := min(len(d.end), cap(d.end)-len(p))
		copy(d.end, d.end[len(d.end)-keep:])
		d.end = append(d.end[:keep], p...)
	}
	return len(p), nil
}

// check fails when the answer is not a 200 whose body starts with prefix.
func (d *discardWriter) check(prefix string) error {
	if d.status != http.StatusOK || !bytes.HasPrefix(d.start, []byte(prefix)) {
		return errors.New("status " + strconv.Itoa(d.status) + ": " + string(d.start))
	}
	return nil
}
