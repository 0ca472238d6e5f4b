package call

import (
	"bytes"
	"net/http"

	"github.com/restgate/gateway/gateway/envelope"
)

// Rendered is an answer rendered ahead of sending (Writer.Render): what a
// response cache keeps and sends again, each time with the request's own
// timeStamp, totalTime and userId. Its fields are read-only once made.
type Rendered struct {
	// Status is the answer's status.
	Status int
	// Body is the envelope up to its per-request members ({"result":...
	// with mapKeys and page, without the closing brace), or the whole
	// answer of a Document.
	Body []byte
	// Document says Body is a whole answer (Form Document), sent as it is.
	Document bool
	// The envelope's flags, fixed by the route, the version and the form.
	OmitFlags, MapKeys, DropNulls bool
}

// Render renders res as Success would send it, without sending it: the
// result mapped with c's version options, the published key map, the page.
// res's owner is released. The error is what to answer instead (Error).
func (w *Writer) Render(c *Call, res Result) (*Rendered, error) {
	owner := res.Owner
	defer release(&owner)
	status := res.Status
	if status == 0 {
		status = http.StatusOK
	}
	if res.Form == Document {
		return &Rendered{Status: status, Body: bytes.Clone(res.JSON), Document: true}, nil
	}
	bp := w.bufs.Get(w.answerSize(res.JSON))
	defer w.bufs.Put(bp)
	buf, fl, err := w.body((*bp)[:0], c, &res, &owner)
	*bp = buf[:0]
	if err != nil {
		return nil, err
	}
	return &Rendered{Status: status, Body: bytes.Clone(buf), OmitFlags: fl.OmitFlags, MapKeys: fl.MapKeys,
		DropNulls: fl.DropNulls}, nil
}

// rendered sends res.Rendered with res.Header: its body and the request's
// own envelope members, or, when res.Status is 304, its headers alone.
func (w *Writer) rendered(rw http.ResponseWriter, c *Call, res Result) {
	h := rw.Header()
	for name, values := range res.Header {
		h[name] = values
	}
	rd := res.Rendered
	var stBuf [serverTimingSize]byte
	if res.Status == http.StatusNotModified {
		_, st := w.finish(c, http.StatusNotModified, stBuf[:0])
		h.Set("Server-Timing", string(st))
		rw.WriteHeader(http.StatusNotModified)
		return
	}
	meta, st := w.finish(c, rd.Status, stBuf[:0])
	if rd.Document {
		w.send(rw, c, rd.Status, rd.Body, st)
		return
	}
	bp := w.bufs.Get(len(rd.Body) + envelopeRoom)
	defer w.bufs.Put(bp)
	buf := append((*bp)[:0], rd.Body...)
	meta.OmitFlags, meta.MapKeys, meta.DropNulls = rd.OmitFlags, rd.MapKeys, rd.DropNulls
	buf = envelope.AppendMeta(buf, meta)
	*bp = buf[:0]
	w.send(rw, c, rd.Status, buf, st)
}
