package h1server

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kept is what a handler kept of its request past its return.
type kept struct {
	w    http.ResponseWriter
	body io.ReadCloser
}

// A handler that keeps its ResponseWriter and its request's Body past its
// return cannot touch the next request on the connection with them: a
// late write, flush, header, status or deadline does nothing to the next
// answer and fails, and a late read fails as net/http's closed body does,
// leaving the next request's body whole.
func TestLateUseOfAnEndedRequest(t *testing.T) {
	t.Parallel()
	keep := make(chan kept, 1)
	entered, release := make(chan struct{}), make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/keep":
			keep <- kept{w: w, body: r.Body}
			_, _ = io.WriteString(w, "first")
		case "/next":
			close(entered)
			<-release
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			_, _ = io.WriteString(w, "next got "+string(b))
		}
	}), Options{})
	c := dial(t, ts.addr)
	c.send("POST /keep HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nkept")
	c.expect(exchange{status: 200, body: "first"})
	k := <-keep

	c.send("POST /next HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nsecond")
	<-entered
	// the next request's handler is running on the connection
	n, err := k.body.Read(make([]byte, 16))
	assert.Zero(t, n)
	assert.ErrorIs(t, err, http.ErrBodyReadAfterClose, "a late read")
	k.w.Header().Set("X-Late", "1")
	k.w.WriteHeader(http.StatusTeapot)
	_, err = io.WriteString(k.w, "LATE")
	assert.ErrorIs(t, err, ErrHandlerDone, "a late write")
	rc := http.NewResponseController(k.w)
	assert.ErrorIs(t, rc.Flush(), ErrHandlerDone, "a late flush")
	assert.Error(t, rc.SetReadDeadline(time.Unix(1, 0)), "a late read deadline")
	assert.Error(t, rc.SetWriteDeadline(time.Unix(1, 0)), "a late write deadline")
	close(release)

	c.expect(exchange{status: 200, body: "next got second", header: map[string]string{"X-Late": "-"}})
	c.send(getHello)
	c.expect(exchange{status: 200})
}

// A write after the handler returned fails even with no request after it.
func TestWriteAfterTheHandlerReturned(t *testing.T) {
	t.Parallel()
	keep := make(chan http.ResponseWriter, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		keep <- w
		_, _ = io.WriteString(w, "done")
	}), Options{})
	c := dial(t, ts.addr)
	c.send(getHello)
	c.expect(exchange{status: 200, body: "done"})
	w := <-keep
	_, err := w.Write([]byte("late"))
	require.ErrorIs(t, err, ErrHandlerDone)
	assert.Empty(t, w.Header(), "a late Header is a map of its own")
}
