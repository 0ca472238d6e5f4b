package call

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"time"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
)

// WriterConfig configures a Writer.
type WriterConfig struct {
	Catalog *envelope.Catalog
	// Always200 answers errors with HTTP 200 (errors.statusMode always200).
	Always200 bool
	// ExposeSystemMessages sends the system template and message to clients.
	ExposeSystemMessages bool
	// MaxOutput is mapping.maxOutputChars; MaxDepth is mapping.maxDepth.
	MaxOutput, MaxDepth int
	// Challenge is the WWW-Authenticate value of a 401.
	Challenge string
	// Redact masks credentials in a request body before it reaches a system
	// message; nil leaves bodies as they are.
	Redact func([]byte) []byte
	// Logger receives REST_DISPATCHER_FAILED and 5xx details.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Writer writes every answer of the API listener. Safe for concurrent use.
type Writer struct {
	cfg WriterConfig
	// bufs holds the answers being written, by size class.
	bufs upstreams.Buffers
}

// NewWriter returns a Writer.
func NewWriter(cfg WriterConfig) *Writer {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Writer{cfg: cfg}
}

// Serve adapts a Handler to http.Handler: it runs h and writes its result
// or error.
func (w *Writer) Serve(h Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := From(r.Context())
		res, err := h(r, c)
		if err != nil {
			w.Error(rw, r, c, err)
			return
		}
		w.Success(rw, r, c, res)
	})
}

// Success maps res with the route's version options and writes the success
// envelope. A result that cannot be written is answered before anything is
// sent: SERIALIZATION_FAILED when it reaches the output limit or nests too
// deeply, CALLOUT_FAILED 502 when it is not valid JSON (see
// serializationError). A result carrying Rendered is sent as rendered
// (rendered).
func (w *Writer) Success(rw http.ResponseWriter, r *http.Request, c *Call, res Result) {
	// The owner is released as soon as JSON is rewritten, before the answer
	// is sent, so that its upstream call is reported without waiting for
	// the client (see Owner); on every other path when Success returns.
	owner := res.Owner
	defer release(&owner)
	if res.Rendered != nil {
		w.rendered(rw, c, res)
		return
	}
	if res.Form == Document {
		w.document(rw, c, res)
		return
	}
	bp := w.bufs.Get(w.answerSize(res.JSON))
	defer w.bufs.Put(bp)
	buf, fl, err := w.body((*bp)[:0], c, &res, &owner)
	if err != nil {
		*bp = buf[:0]
		w.Error(rw, r, c, err)
		return
	}
	status := res.Status
	if status == 0 {
		status = http.StatusOK
	}
	var stBuf [serverTimingSize]byte // on the stack: send makes the one string
	meta, st := w.finish(c, status, stBuf[:0])
	meta.OmitFlags, meta.MapKeys, meta.DropNulls = fl.OmitFlags, fl.MapKeys, fl.DropNulls
	buf = envelope.AppendMeta(buf, meta)
	*bp = buf[:0]
	w.send(rw, c, status, buf, st)
}

// envelopeFlags are the envelope's members that follow from the route, the
// version and the result's form, not from the request.
type envelopeFlags struct {
	OmitFlags, MapKeys, DropNulls bool
}

// body appends res's envelope up to its per-request members to buf: the
// result mapped with the call's version options, the published key map,
// the page. It releases owner once JSON is rewritten, rejecting it first
// when the backend's answer is at fault; the error is what to answer
// instead (buf is returned for its memory).
func (w *Writer) body(buf []byte, c *Call, res *Result, owner *Owner) ([]byte, envelopeFlags, error) {
	buf = envelope.AppendResultStart(buf)
	if res.JSON == nil {
		buf = append(buf, `""`...)
	} else {
		opts := mapping.Options{MaxDepth: w.cfg.MaxDepth, MaxOutput: w.cfg.MaxOutput, Links: res.Links}
		if o := c.Options; o != nil {
			opts.DropNulls = o.DropNulls
			if res.Form == InternalNames {
				opts.Select = o.Select
				if o.MapKeys {
					opts.Map = o.KeyMap
				}
			}
		}
		var err error
		var elements int
		if buf, elements, err = mapping.RewriteCount(buf, res.JSON, opts); err != nil {
			if res.SizeParam != "" && errors.Is(err, mapping.ErrTooLarge) {
				return buf, envelopeFlags{}, tooLong(*res, opts, err)
			}
			if se := (*mapping.SyntaxError)(nil); *owner != nil && errors.As(err, &se) {
				(*owner).Reject(err)
			}
			release(owner)
			return buf, envelopeFlags{}, serializationError(err)
		}
		if res.Paging != nil {
			if res.Page, err = res.Paging(elements); err != nil {
				if ue := upstreams.AsError(err); *owner != nil && ue != nil && ue.Kind == upstreams.KindInvalid {
					(*owner).Reject(ue)
				}
				release(owner)
				return buf, envelopeFlags{}, err
			}
		}
	}
	release(owner)
	var fl envelopeFlags
	fl.OmitFlags = res.Form == Listing
	fl.MapKeys, fl.DropNulls = flags(c)
	fl.MapKeys = fl.MapKeys || res.Form == MappedByHandler
	if res.MapKeys != nil {
		fl.MapKeys = true // a published key map is the flag's subject
		buf = append(buf, `,"mapKeys":`...)
		buf = append(buf, res.MapKeys...)
	}
	if res.Page != nil {
		buf = envelope.AppendPage(buf, *res.Page)
	}
	return buf, fl, nil
}

// release releases *o once: it is nil afterwards.
func release(o *Owner) {
	if *o != nil {
		(*o).Release()
		*o = nil
	}
}

// document sends res.JSON as it is (see Document).
func (w *Writer) document(rw http.ResponseWriter, c *Call, res Result) {
	status := res.Status
	if status == 0 {
		status = http.StatusOK
	}
	var stBuf [serverTimingSize]byte
	_, st := w.finish(c, status, stBuf[:0])
	w.send(rw, c, status, res.JSON, st)
}

// serializationError names why a result could not be written. A result that
// is not valid JSON came from a backend that broke its contract (handlers
// build their own JSON correctly), so it is a failed callout (502), not a
// failure of the gateway; the writer's rewrite is the one place backend JSON
// is validated.
func serializationError(err error) error {
	var se *mapping.SyntaxError
	switch {
	case errors.Is(err, mapping.ErrTooLarge):
		return envelope.Wrap(envelope.SerializationFailed, err, "the answer reached the output limit; page with limit and offset")
	case errors.Is(err, mapping.ErrTooDeep):
		return envelope.Wrap(envelope.SerializationFailed, err, "the answer is nested too deeply")
	case errors.As(err, &se):
		return &envelope.Error{ID: envelope.CalloutFailed, Status: http.StatusBadGateway, Cause: err,
			Detail: "the upstream answer is not valid JSON"}
	}
	return envelope.Wrap(envelope.SerializationFailed, err, "the answer could not be serialised")
}

// Error writes the error envelope of err, with the headers of a
// HeadedError in its chain. Its system message always goes to the local log (error level for 5xx, warn for 503, info otherwise), whether
// or not errors.exposeSystemMessages sends it to the client.
func (w *Writer) Error(rw http.ResponseWriter, r *http.Request, c *Call, err error) {
	total := w.elapsed(c)
	args := envelope.CallArgs{UserID: c.Identity.UserID, TraceID: c.TraceID, TotalTime: strconv.FormatFloat(total, 'f', 3, 64),
		Method: LoggedMethod(r.Method), Path: r.URL.Path}
	if len(c.Body) > 0 {
		body := c.Body
		if w.cfg.Redact != nil {
			body = w.cfg.Redact(body)
		}
		args.Body = string(body)
	}
	rd := w.cfg.Catalog.Render(err, args)
	c.CodeID, c.SystemMessage = rd.Code.ID, rd.SystemMessage
	if ue := upstreams.AsError(err); ue != nil {
		c.ErrorUpstream = ue.Upstream
	}
	level := slog.LevelInfo
	switch {
	case rd.Status == http.StatusServiceUnavailable:
		level = slog.LevelWarn // an open breaker or full bulkhead: expected while a backend is down
	case rd.Status >= 500:
		level = slog.LevelError
	}
	w.cfg.Logger.Log(r.Context(), level, "request answered with an error", "code", rd.Code.ID, "status", rd.Status,
		"trace_id", c.TraceID, "system_message", rd.SystemMessage)
	h := rw.Header()
	if he, ok := errors.AsType[*HeadedError](err); ok {
		for name, values := range he.Header {
			h[name] = values
		}
	}
	if rd.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(rd.RetryAfter))
	}
	if len(rd.Allow) > 0 {
		h.Set("Allow", strings.Join(rd.Allow, ", "))
	}
	if rd.WWWAuthenticate && w.cfg.Challenge != "" {
		h.Set("WWW-Authenticate", w.cfg.Challenge)
	}
	status := rd.Status
	var stBuf [serverTimingSize]byte
	meta, st := w.finish(c, status, stBuf[:0])
	meta.MapKeys, meta.DropNulls = flags(c)
	bp := w.bufs.Get(upstreams.MinBuffer)
	defer w.bufs.Put(bp)
	out := envelope.AppendError((*bp)[:0], rd, w.cfg.ExposeSystemMessages, meta)
	*bp = out[:0]
	if w.cfg.Always200 {
		status = http.StatusOK
	}
	w.send(rw, c, status, out, st)
}

// serverTimingSize fits the Server-Timing value and the Content-Length
// digits of any answer shorter than a few hours.
const serverTimingSize = 112

// finish records the outcome on c and returns the envelope's meta and the
// Server-Timing value appended to st, for send. totalTime and
// Server-Timing's total come from one reading.
func (w *Writer) finish(c *Call, status int, st []byte) (envelope.Meta, []byte) {
	now := w.cfg.Now()
	total := w.elapsedAt(c, now)
	c.Status, c.TotalMillis = status, total
	up := float64(c.Upstream.Timing.Total()) / 1e6
	st = append(st, "gateway;dur="...)
	st = envelope.AppendMillis(st, max(total-up, 0))
	st = append(st, ", upstream;dur="...)
	st = envelope.AppendMillis(st, up)
	st = append(st, ", total;dur="...)
	st = envelope.AppendMillis(st, total)
	return envelope.Meta{Time: now, TotalMillis: total, UserID: c.Identity.UserID}, st
}

func (w *Writer) elapsed(c *Call) float64 { return w.elapsedAt(c, w.cfg.Now()) }

func (w *Writer) elapsedAt(c *Call, now time.Time) float64 {
	if c.Start.IsZero() {
		return 0
	}
	// Rounded to the microsecond so totalTime and Server-Timing print the
	// same three decimals.
	return float64(now.Sub(c.Start).Microseconds()) / 1000
}

// send writes c's answer with its headers; timing is the Server-Timing
// value from finish.
func (w *Writer) send(rw http.ResponseWriter, c *Call, status int, body []byte, timing []byte) {
	h := rw.Header()
	// Server-Timing and Content-Length are two parts of one string, and the
	// four values live in c, instead of an allocation each; every header
	// gets a full slice so an append elsewhere cannot spill over.
	n := len(timing)
	both := string(strconv.AppendInt(timing, int64(len(body)), 10))
	c.answer = [...]string{"application/json; charset=utf-8", both[n:], "nosniff", both[:n]}
	h["Content-Type"] = c.answer[0:1:1]
	h["Content-Length"] = c.answer[1:2:2]
	h["X-Content-Type-Options"] = c.answer[2:3:3]
	h["Server-Timing"] = c.answer[3:4:4]
	rw.WriteHeader(status)
	_, _ = rw.Write(body)
}

// envelopeRoom is what an answer holds beside its result: the envelope's
// members, with room to spare for the rewrite's block moves.
const envelopeRoom = 1 << 10

// answerSize is the buffer an answer whose result is rewritten from src is
// written into: as long as src (a rewrite drops whitespace and nulls, and
// key maps rarely lengthen names) but no longer than the output limit
// allows, plus the envelope. A result that comes out longer grows the
// buffer as append does.
func (w *Writer) answerSize(src []byte) int {
	n := len(src)
	if w.cfg.MaxOutput > 0 {
		n = min(n, w.cfg.MaxOutput)
	}
	return n + envelopeRoom
}

// flags are the envelope's mapKeysFlag (whether a key map was applied) and
// serializeNulls (whether nulls are dropped); with no route matched they are
// the seed's defaults with no map.
func flags(c *Call) (mapKeys, dropNulls bool) {
	if o := c.Options; o != nil {
		return o.MapKeys && o.KeyMap != nil, o.DropNulls
	}
	return false, true
}
