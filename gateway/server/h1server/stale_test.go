package h1server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
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

// echoBody answers "next got " and the request's body: what the next
// request on a connection got, whole or not.
func echoBody(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	_, _ = io.WriteString(w, "next got "+string(b))
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
			echoBody(w, r)
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

// A goroutine a handler started keeps using its request's ResponseWriter
// and Body, in a loop, while the handler returns and the connection serves
// the next request: none of its calls reaches the next exchange, whether
// it passed its check just before the return or after it. The next request
// is served while the goroutine is known to be failing (it saw
// ErrHandlerDone), and its answer and body are exactly its own. Under
// -race, a late call that touched the connection's response outside the
// handle lock fails the test.
func TestLateGoroutineNeverReachesTheNextExchange(t *testing.T) {
	t.Parallel()
	type lateUse struct{ failing, stop chan struct{} }
	var wg sync.WaitGroup
	ended := make(chan struct{}) // the test's end, should it fail before stopping one
	toTest, toNext := make(chan lateUse, 1), make(chan chan struct{}, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/keep":
			u := lateUse{failing: make(chan struct{}), stop: make(chan struct{})}
			started := make(chan struct{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				rc := http.NewResponseController(w)
				buf := make([]byte, 3)
				failing := u.failing
				for i := 0; ; i++ {
					select {
					case <-u.stop:
						return
					case <-ended:
						return
					default:
					}
					w.Header().Set("X-Late", "1")
					_, err := io.WriteString(w, "LATE")
					w.WriteHeader(http.StatusTeapot)
					_, _ = r.Body.Read(buf)
					_ = rc.Flush()
					_ = rc.SetWriteDeadline(time.Now().Add(time.Minute))
					if i == 0 {
						close(started)
					}
					if errors.Is(err, ErrHandlerDone) && failing != nil {
						close(failing)
						failing = nil
					}
					runtime.Gosched() // two cores: the connection must get its turn
				}
			}()
			<-started
			toTest <- u
			toNext <- u.failing
		case "/next":
			<-<-toNext // the goroutine runs past its handler's return
			echoBody(w, r)
		}
	}), Options{})
	defer wg.Wait()
	defer close(ended)

	c := dial(t, ts.addr)
	for i := range 30 {
		c.send("POST /keep HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nkeptkeptke")
		resp, body := c.read(http.MethodPost)
		u := <-toTest
		require.Equal(t, http.StatusOK, resp.StatusCode, i)
		require.Regexp(t, `^(LATE)+$`, body, "the handler's own goroutine wrote while it ran")

		next := fmt.Sprintf("second %02d", i)
		c.send(fmt.Sprintf("POST /next HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(next), next))
		c.expect(exchange{method: http.MethodPost, status: 200, body: "next got " + next, header: map[string]string{"X-Late": "-"}})
		close(u.stop)
	}
}
