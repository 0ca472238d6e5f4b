package desync

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Account ids are 15 letters and digits, as the accounts route requires.
// A plain id starts with "001N"; a trick id with "001T" and the trick's
// two-digit number (hostile.go), which the backend answers with.
const (
	plainPrefix = "001N"
	trickPrefix = "001T"
)

// ids hands out unique account ids.
type ids struct{ n atomic.Int64 }

// plain is a fresh id the backend answers plainly.
func (g *ids) plain() string { return fmt.Sprintf("%s%011d", plainPrefix, g.n.Add(1)) }

// trick is a fresh id the backend answers with trick number n.
func (g *ids) trick(n int) string { return fmt.Sprintf("%s%02d%09d", trickPrefix, n, g.n.Add(1)) }

// ask is a request the backend answers: its method and the id it names.
type ask struct{ method, id string }

// body is the JSON the contract answers a: the account for a GET, the new
// account's id for a POST (the create answer).
func (a ask) body() string {
	if a.method == http.MethodPost {
		return `{"id":"` + a.id + `"}`
	}
	return `[{"Id":"` + a.id + `","Name":"Account ` + a.id + `"}]`
}

// answerer writes the answer to a on nc; extra says it wrote more than
// the answer (the connection must not be used again).
type answerer func(nc net.Conn, a ask) (extra bool, err error)

// backend is a raw-socket account controller (UPSTREAMS.md B1) that echoes
// ids: GET /api/v1/account/{id} answers [{"Id": id, ...}] and POST
// /api/v1/account/ answers {"id": the body's Name}. A trick id is answered
// by tricks[n] instead. It records every id it served and every request
// that came on a connection after that connection wrote extra bytes.
type backend struct {
	url    string
	tricks map[int]answerer

	mu          sync.Mutex
	served      []string
	extraFor    map[string]bool // ids whose answer wrote extra bytes
	afterExtra  []string
	closedExtra int // connections the gateway closed after they wrote extra bytes
}

func newBackend(t *testing.T, tricks map[int]answerer) *backend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	b := &backend{url: "http://" + ln.Addr().String(), tricks: tricks, extraFor: map[string]bool{}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]struct{}{}
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for nc := range open {
			_ = nc.Close()
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
			open[nc] = struct{}{}
			mu.Unlock()
			wg.Go(func() {
				b.serve(nc)
				mu.Lock()
				delete(open, nc)
				mu.Unlock()
			})
		}
	})
	return b
}

func (b *backend) serve(nc net.Conn) {
	defer nc.Close()
	br := bufio.NewReader(nc)
	extra := false
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			// a close or a reset (a close with stray bytes unread)
			if extra {
				b.mu.Lock()
				b.closedExtra++
				b.mu.Unlock()
			}
			return
		}
		id, err := accountID(req)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.served = append(b.served, id)
		if extra {
			b.afterExtra = append(b.afterExtra, id)
		}
		b.mu.Unlock()
		answer := plainAnswer
		if n, ok := trickOf(id); ok {
			answer = b.tricks[n]
		}
		wrote, err := answer(nc, ask{method: req.Method, id: id})
		if wrote {
			b.mu.Lock()
			b.extraFor[id] = true
			b.mu.Unlock()
		}
		extra = extra || wrote
		if err != nil {
			return
		}
	}
}

// accountID is the id a request names: the path's last segment for GET,
// the body's Name for POST.
func accountID(req *http.Request) (string, error) {
	if req.Method == http.MethodPost {
		var rec struct{ Name string }
		err := json.NewDecoder(io.LimitReader(req.Body, 1<<20)).Decode(&rec)
		_, _ = io.Copy(io.Discard, req.Body)
		return rec.Name, err
	}
	_, _ = io.Copy(io.Discard, req.Body)
	id := req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]
	if id == "" {
		return "", fmt.Errorf("no id in %s", req.URL.Path)
	}
	return id, nil
}

// trickOf reports the trick number of a trick id.
func trickOf(id string) (int, bool) {
	var n int
	if !strings.HasPrefix(id, trickPrefix) || len(id) < 6 {
		return 0, false
	}
	if _, err := fmt.Sscanf(id[4:6], "%02d", &n); err != nil {
		return 0, false
	}
	return n, true
}

// plainAnswer answers as the contract says, in one write.
func plainAnswer(nc net.Conn, a ask) (bool, error) {
	_, err := io.WriteString(nc, framed(a.body()))
	return false, err
}

// framed is body as a whole answer with its length.
func framed(body string) string {
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// reused are the ids requested on a connection after it had written extra
// bytes.
func (b *backend) reused() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.afterExtra...)
}

// wroteExtra reports whether the answer for id wrote extra bytes (late
// ones once they are written).
func (b *backend) wroteExtra(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.extraFor[id]
}

// saw reports whether the backend was asked for id.
func (b *backend) saw(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.served {
		if s == id {
			return true
		}
	}
	return false
}

// closedAfterExtras is how many connections that wrote extra bytes the
// gateway has closed.
func (b *backend) closedAfterExtras() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closedExtra
}
