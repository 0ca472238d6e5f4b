package call

import (
	"net/http"
	"strings"
)

// NoContent answers 204 with no body: the answer to OPTIONS, whose Allow
// header lists allow. Server-Timing and the call's bookkeeping are kept
// as for every answer.
func (w *Writer) NoContent(rw http.ResponseWriter, c *Call, allow []string) {
	var stBuf [serverTimingSize]byte
	_, st := w.finish(c, http.StatusNoContent, stBuf[:0])
	h := rw.Header()
	if len(allow) > 0 {
		h.Set("Allow", strings.Join(allow, ", "))
	}
	h.Set("Server-Timing", string(st))
	rw.WriteHeader(http.StatusNoContent)
}
