package middleware

import (
	"net/http"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/identity"
)

// Authenticate identifies the caller before any route runs; a failure is
// answered AUTHENTICATION_REQUIRED (401 with WWW-Authenticate). Identity
// headers sent by clients (X-User-Id and the like) are never read.
func Authenticate(next http.Handler, a identity.Authenticator, w *call.Writer) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := call.From(r.Context())
		id, err := a.Authenticate(r)
		if err != nil {
			w.Error(rw, r, c, err)
			return
		}
		c.Identity = id
		next.ServeHTTP(rw, r)
	})
}
