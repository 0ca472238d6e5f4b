package middleware

import (
	"fmt"
	"net/http"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
)

// LimitURL answers REQUEST_TOO_LARGE (413) to a request whose URL (path and
// query) is longer than max, before any route parses it. Header size is
// bounded by LimitHeaders and body size per route.
func LimitURL(next http.Handler, max int, w *call.Writer) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if len(r.RequestURI) > max {
			w.Error(rw, r, call.From(r.Context()),
				envelope.New(envelope.RequestTooLarge, fmt.Sprintf("the URL is over %d characters", max)))
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// LimitHeaders answers REQUEST_TOO_LARGE (413) to a request whose header
// bytes (the request line and every header line, as sent) exceed max. The
// server's own header limit must be set above max (gateway/server reads
// twice max) so that an oversized header reaches this check and gets an
// envelope; only headers past the server's limit get a plain 431.
func LimitHeaders(next http.Handler, max int, w *call.Writer) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if n := HeaderBytes(r); n > max {
			w.Error(rw, r, call.From(r.Context()),
				envelope.New(envelope.RequestTooLarge, fmt.Sprintf("the headers are over %d bytes", max)))
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// HeaderBytes is the size of r's request line and header lines as they came
// on the wire ("Name: value\r\n" each, Host included). HTTP/2 header
// compression is not undone: the count is of the decoded headers, which is
// what the gateway holds in memory.
func HeaderBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.Host != "" {
		n += len("Host: ") + len(r.Host) + 2
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n
}
