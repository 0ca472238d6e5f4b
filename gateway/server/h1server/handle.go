package h1server

import (
	"errors"
	"net/http"
	"time"
)

// ErrHandlerDone is returned by the ResponseWriter of a request whose
// handler has returned (Write, FlushError, SetReadDeadline,
// SetWriteDeadline): the connection is serving another request, or none.
// A late read of the request's body fails with http.ErrBodyReadAfterClose,
// as net/http's does.
var ErrHandlerDone = errors.New("h1server: ResponseWriter used after its handler returned")

// handles are what a handler holds of its request: its ResponseWriter and
// its Body. A connection reuses one response from request to request, so
// each request gets handles of its own (allocated with the request, see
// incoming), stamped with the response's generation then; the response
// moves to the next generation as the handler returns (endRequest). A
// handler, or a goroutine it started, that keeps either past its return
// thus fails instead of writing into, or reading from, the next request on
// the connection, which behind a proxy that pools connections is another
// client's.
//
// Every call through a handle holds the response's hmu from its check of
// the generation to its end, and endRequest takes hmu to move it: a call
// that passed the check just before the handler returned is over before
// the connection touches the answer or the next request (the return waits
// for it, as net/http's waits for a late body read), and one after it
// fails. Calls through the handles of one request are thus serialized too.
type handles struct {
	writer writerHandle
	body   bodyHandle
}

// incoming is one request as its connection reads and serves it: the
// request parsed into, and the handles its handler is given, in one
// allocation.
type incoming struct {
	req http.Request
	handles
}

// init points h at w's current request; on the connection's goroutine,
// the only writer of gen.
func (h *handles) init(w *response) {
	h.writer = writerHandle{w: w, gen: w.gen}
	h.body = bodyHandle{w: w, gen: w.gen}
}

// endRequest ends the request its handler served: once it returns, no
// call through that request's handles is under way, and none will reach
// the response again.
func (w *response) endRequest() {
	w.hmu.Lock()
	w.gen++
	w.hmu.Unlock()
}

// writerHandle is the http.ResponseWriter (and http.Flusher, and what
// http.ResponseController uses) of one request. Each method holds hmu
// throughout (see handles).
type writerHandle struct {
	w   *response
	gen uint64
}

// Header returns the answer's header map; after the handler returned, a
// map of its own, whose changes go nowhere. The map returned before is the
// request's own (response.reset makes one per request): a change to it
// after the return never reaches another answer.
func (h *writerHandle) Header() http.Header {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen != h.gen {
		return http.Header{}
	}
	return h.w.Header()
}

// WriteHeader sets the status; after the handler returned it does nothing.
func (h *writerHandle) WriteHeader(code int) {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen == h.gen {
		h.w.WriteHeader(code)
	}
}

// Write takes body bytes; after the handler returned it fails with
// ErrHandlerDone.
func (h *writerHandle) Write(p []byte) (int, error) {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen != h.gen {
		return 0, ErrHandlerDone
	}
	return h.w.Write(p)
}

// FlushError sends what is held; after the handler returned it fails with
// ErrHandlerDone.
func (h *writerHandle) FlushError() error {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen != h.gen {
		return ErrHandlerDone
	}
	return h.w.FlushError()
}

// Flush is FlushError without the error.
func (h *writerHandle) Flush() { _ = h.FlushError() }

// SetReadDeadline moves the read deadline for the rest of the request;
// after the handler returned it fails with ErrHandlerDone.
func (h *writerHandle) SetReadDeadline(t time.Time) error {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen != h.gen {
		return ErrHandlerDone
	}
	return h.w.SetReadDeadline(t)
}

// SetWriteDeadline moves the write deadline for the rest of the request;
// after the handler returned it fails with ErrHandlerDone.
func (h *writerHandle) SetWriteDeadline(t time.Time) error {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen != h.gen {
		return ErrHandlerDone
	}
	return h.w.SetWriteDeadline(t)
}

// bodyHandle is the Body of one request that has one. Each method holds
// hmu throughout (see handles).
type bodyHandle struct {
	w   *response
	gen uint64
}

// Read reads the request's body; after the handler returned it fails with
// http.ErrBodyReadAfterClose.
func (h *bodyHandle) Read(p []byte) (int, error) {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen != h.gen {
		return 0, http.ErrBodyReadAfterClose
	}
	return h.w.body.Read(p)
}

// Close ends the handler's reading (see body.Close); after the handler
// returned it does nothing.
func (h *bodyHandle) Close() error {
	h.w.hmu.Lock()
	defer h.w.hmu.Unlock()
	if h.w.gen != h.gen {
		return nil
	}
	return h.w.body.Close()
}
