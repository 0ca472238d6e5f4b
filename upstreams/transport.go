package upstreams

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/upstreams/h1client"
)

// Transport tuning that has no setting of its own.
const (
	idleConnTimeout       = 90 * time.Second
	tcpKeepAlive          = 30 * time.Second
	expectContinueTimeout = time.Second
	// minIdleConns keeps MaxIdleConns from being the bottleneck when the
	// per-host pool is configured small.
	minIdleConns = 100
	// readBufferSize lets one read take in the headers and a typical JSON
	// answer together (the default 4 KiB needs several reads and wake-ups
	// for a list of records); it is allocated per pooled connection.
	readBufferSize = 32 << 10
	// maxErrorBody bounds how much of a 5xx answer becomes Error.Message.
	maxErrorBody = 4 << 10
	// maxDrain bounds what is read past the message so the connection can
	// be reused; a longer error body costs the connection instead.
	maxDrain = 64 << 10
)

// newTransport returns the client's transport, from settings that already
// carry their defaults. With Transport fast, plain-http exchanges run on the
// caller's goroutine (h1client) and https, proxied and streaming requests go
// to the standard transport; with std, everything does.
func newTransport(s Settings) transport {
	std := newStdTransport(s)
	if s.Transport == TransportStd {
		return std
	}
	return h1client.New(h1client.Options{
		Dial:                  std.DialContext,
		Proxy:                 std.Proxy,
		Fallback:              std,
		MaxIdlePerHost:        s.MaxIdleConnsPerHost,
		IdleTimeout:           idleConnTimeout,
		ResponseHeaderTimeout: s.ResponseHeaderTimeout,
	})
}

// newStdTransport clones http.DefaultTransport (keeping its proxy-from-
// environment and HTTP/2 support) and tunes it from s.
func newStdTransport(s Settings) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: s.ConnectTimeout, KeepAlive: tcpKeepAlive}
	t.DialContext = dialer.DialContext
	t.MaxIdleConns = max(s.MaxIdleConnsPerHost, minIdleConns)
	t.MaxIdleConnsPerHost = s.MaxIdleConnsPerHost
	t.IdleConnTimeout = idleConnTimeout
	t.TLSHandshakeTimeout = s.ConnectTimeout
	t.ResponseHeaderTimeout = s.ResponseHeaderTimeout
	t.ExpectContinueTimeout = expectContinueTimeout
	t.ForceAttemptHTTP2 = true
	t.ReadBufferSize = readBufferSize
	t.MaxResponseHeaderBytes = h1client.MaxHeadBytes
	return t
}

// credentials are the configured credential headers of one backend, in
// the order they apply, built once by newCredentials so that no request
// encodes them again.
type credentials []credential

// credential is one header. values is set on every outgoing request as it
// is, shared by all of them: neither transport modifies a request's header
// values, so no request allocates its own.
type credential struct {
	name   string
	values []string
}

// newCredentials turns a into canonical header names and final values:
// Basic first, then Bearer, then the extra headers, each overriding an
// earlier one of the same name.
func newCredentials(a AuthSettings) credentials {
	var c credentials
	if a.Username != "" {
		basic := base64.StdEncoding.EncodeToString([]byte(a.Username + ":" + a.Password))
		c = append(c, credential{"Authorization", []string{"Basic " + basic}})
	}
	if a.BearerToken != "" {
		c = append(c, credential{"Authorization", []string{"Bearer " + a.BearerToken}})
	}
	for name, value := range a.Headers {
		c = append(c, credential{textproto.CanonicalMIMEHeaderKey(name), []string{value}})
	}
	return c
}

// prepare sets what every outgoing request carries: the configured
// credentials (they override what an adapter set) and the W3C trace context
// of ctx, when it holds one. h belongs to the attempt's own request, never
// to the caller. The trace headers captured for the gateway request
// (CallState.Trace) are reused while they still describe ctx's span context.
func prepare(ctx context.Context, h http.Header, creds credentials) {
	for _, c := range creds {
		h[c.name] = c.values
	}
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return
	}
	if s := CallStateFrom(ctx); s != nil && s.Trace.describes(sc) {
		s.Trace.SetOn(h)
		return
	}
	propagation.TraceContext{}.Inject(ctx, TraceCarrier(h))
}

// classify turns an error of one attempt (or of reading its body) into the
// client's *Error. parent is the caller's context, ctx the call's own,
// bounded by the call timeout.
func classify(upstream string, parent, ctx context.Context, err error) *Error {
	return classifyCall(upstream, parent, ctx.Err() != nil, err)
}

// classifyCall is classify for a call whose own bound is known to have
// passed (expired) or not, with or without a context of its own.
func classifyCall(upstream string, parent context.Context, expired bool, err error) *Error {
	kind := KindFailed
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		kind = KindCanceled
	case expired:
		kind = KindTimeout
	case isTimeout(err):
		kind = KindTimeout
	}
	return &Error{Upstream: upstream, Kind: kind, Err: err}
}

// isTimeout reports an attempt-level timeout: connect, TLS handshake or
// response headers.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// statusError consumes and closes a 5xx answer, keeping the start of its
// body as the message.
func statusError(upstream string, resp *http.Response) *Error {
	buf, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
	msg := strings.TrimSpace(strings.ToValidUTF8(string(buf), "\uFFFD"))
	return &Error{Upstream: upstream, Kind: KindFailed, Status: resp.StatusCode, Message: msg}
}

// malformedStatus closes an answer whose status no request of the gateway
// can be answered with: below 100 or above 599 (which RFC 9110 does not
// define, though net/http's Transport passes them on), or an interim 1xx
// (101 to a request that asked for no upgrade) as a final answer. It fails
// as a malformed answer from h1client does: a transport failure, 502.
func malformedStatus(upstream string, resp *http.Response) *Error {
	_ = resp.Body.Close()
	return &Error{Upstream: upstream, Kind: KindFailed, Err: fmt.Errorf("malformed answer: status %d", resp.StatusCode)}
}

// TraceCarrier is a propagation carrier over an http.Header that reads and
// writes the W3C headers (traceparent, tracestate) under their canonical
// names directly: http.Header's Get and Set would canonicalise the
// propagator's lowercase keys into a new string on every request. Other
// keys are canonicalised as http.Header does; Get returns the first value,
// Set replaces every value, as theirs do.
type TraceCarrier http.Header

// traceKey is key as http.Header stores it.
func traceKey(key string) string {
	switch key {
	case "traceparent":
		return "Traceparent"
	case "tracestate":
		return "Tracestate"
	}
	return textproto.CanonicalMIMEHeaderKey(key)
}

// Get returns the first value of key, "" when it has none.
func (c TraceCarrier) Get(key string) string {
	if v := c[traceKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Set replaces the values of key with value.
func (c TraceCarrier) Set(key, value string) { c[traceKey(key)] = []string{value} }

// Keys lists the header's names.
func (c TraceCarrier) Keys() []string { return propagation.HeaderCarrier(c).Keys() }

// TraceHeaders are the W3C trace headers (traceparent, tracestate) of one
// span context, formatted once so that a gateway request's answer and every
// upstream call it makes share the same values instead of formatting them
// again. Fill it with Capture before sharing it; afterwards it is only read.
// The client finds it in a call's context (CallState.Trace) and uses it only
// while the context's span context is still the captured one, so a context
// carrying another span sends that span's headers. The zero value holds
// nothing.
type TraceHeaders struct {
	span trace.SpanContext
	// vals backs the headers' one-element value slices: traceparent,
	// tracestate.
	vals [2]string
}

// Capture formats the headers of ctx's span context exactly as
// propagation.TraceContext writes them; with no valid span context in ctx
// the headers are empty.
func (t *TraceHeaders) Capture(ctx context.Context) {
	*t = TraceHeaders{span: trace.SpanContextFromContext(ctx)}
	propagation.TraceContext{}.Inject(ctx, (*traceCapture)(t))
}

// SpanContext is the span context the headers were captured from.
func (t *TraceHeaders) SpanContext() trace.SpanContext { return t.span }

// Traceparent is the traceparent header's values, nil when none was
// captured. The slice is shared and must not be modified.
func (t *TraceHeaders) Traceparent() []string {
	if t.vals[0] == "" {
		return nil
	}
	return t.vals[0:1:1]
}

// TraceID is the trace id in 32 lowercase hex digits, "" when none was
// captured. It is a part of the traceparent value, so it costs nothing.
func (t *TraceHeaders) TraceID() string {
	const start = len("00-")
	if tp := t.vals[0]; len(tp) >= start+32 {
		return tp[start : start+32]
	}
	if t.span.HasTraceID() {
		return t.span.TraceID().String()
	}
	return ""
}

// SetOn sets the captured headers on h under their canonical names,
// sharing the values (an Add on h copies them, as their capacity is one).
// With nothing captured, h is left alone.
func (t *TraceHeaders) SetOn(h http.Header) {
	if t.vals[0] != "" {
		h["Traceparent"] = t.vals[0:1:1]
	}
	if t.vals[1] != "" {
		h["Tracestate"] = t.vals[1:2:2]
	}
}

// describes reports whether Inject of a context whose span context is sc
// would write exactly the captured headers.
func (t *TraceHeaders) describes(sc trace.SpanContext) bool {
	c := t.span
	if t.vals[0] == "" || sc.TraceID() != c.TraceID() || sc.SpanID() != c.SpanID() || sc.TraceFlags() != c.TraceFlags() {
		return false
	}
	if sc.TraceState().Len() == 0 && c.TraceState().Len() == 0 {
		return true
	}
	return sc.TraceState().String() == t.vals[1]
}

// traceCapture is the propagation carrier Capture writes through.
type traceCapture TraceHeaders

func (c *traceCapture) Get(key string) string {
	switch key {
	case "traceparent":
		return c.vals[0]
	case "tracestate":
		return c.vals[1]
	}
	return ""
}

func (c *traceCapture) Set(key, value string) {
	switch key {
	case "traceparent":
		c.vals[0] = value
	case "tracestate":
		c.vals[1] = value
	}
}

func (c *traceCapture) Keys() []string { return []string{"traceparent", "tracestate"} }
