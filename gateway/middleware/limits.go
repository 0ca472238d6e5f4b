package middleware

import (
	"fmt"
	"net/http"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
)

// LimitURL answers REQUEST_TOO_LARGE (413) to a request whose URL (path and
// query) is longer than max, before any route parses it. Header size is
// bounded by the server's MaxHeaderBytes and body size per route.
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
