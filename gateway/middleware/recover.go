package middleware

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
)

// Recover turns a panic below it into a REST_DISPATCHER_FAILED answer and an
// error log line with the stack, so a bug never drops the connection. The
// stack goes only to the log, never to the client.
func Recover(next http.Handler, w *call.Writer, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v) // the handler asked for the connection to be cut
			}
			c := call.From(r.Context())
			logger.Error("handler panicked", "panic", fmt.Sprint(v), "trace_id", c.TraceID,
				"path", r.URL.Path, "stack", string(debug.Stack()))
			if c.Status != 0 {
				return // the answer is already on its way; nothing more to send
			}
			w.Error(rw, r, c, envelope.Wrap(envelope.RestDispatcherFailed, fmt.Errorf("panic: %v", v)))
		}()
		next.ServeHTTP(rw, r)
	})
}
