package accounts_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
)

// reply is one scripted backend answer.
type reply struct {
	status int
	body   string
}

// strictBackend is an account controller that answers only the requests a
// test scripted, each key ("METHOD /path?query body") once per scripted
// reply, in order, and records every request it got. Anything unscripted
// is answered 418 so that the test sees it in the recorded list.
type strictBackend struct {
	mu     sync.Mutex
	script map[string][]reply
	got    []string
}

func newStrictBackend(t *testing.T, script map[string][]reply) (*strictBackend, string) {
	t.Helper()
	b := &strictBackend{script: make(map[string][]reply, len(script))}
	for k, v := range script {
		b.script[k] = append([]reply(nil), v...)
	}
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	return b, srv.URL
}

func (b *strictBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Method + " " + r.URL.RequestURI()
	if len(body) > 0 {
		key += " " + string(body)
	}
	b.mu.Lock()
	b.got = append(b.got, key)
	queue := b.script[key]
	var rep reply
	if len(queue) > 0 {
		rep, b.script[key] = queue[0], queue[1:]
	} else {
		rep = reply{status: http.StatusTeapot, body: `{"message":"unscripted"}`}
	}
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

// requests returns what the backend received, sorted when the gateway may
// send them concurrently.
func (b *strictBackend) requests(sorted bool) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]string{}, b.got...)
	if sorted {
		sort.Strings(out)
	}
	return out
}
