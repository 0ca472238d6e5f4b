package upstreams

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/restgate/gateway/upstreams/h1"
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
// carry their defaults: plain-http exchanges run on the caller's goroutine
// (h1); https, proxied and streaming requests go to the standard transport.
func newTransport(s Settings) *h1.Transport {
	std := newStdTransport(s)
	return h1.New(h1.Options{
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
	return t
}

// credentials are the configured credential headers of one backend, in
// the order they apply, built once by newCredentials so that no request
// encodes them again.
type credentials []credential

type credential struct{ name, value string }

// newCredentials turns a into canonical header names and final values:
// Basic first, then Bearer, then the extra headers, each overriding an
// earlier one of the same name.
func newCredentials(a AuthSettings) credentials {
	var c credentials
	if a.Username != "" {
		basic := base64.StdEncoding.EncodeToString([]byte(a.Username + ":" + a.Password))
		c = append(c, credential{"Authorization", "Basic " + basic})
	}
	if a.BearerToken != "" {
		c = append(c, credential{"Authorization", "Bearer " + a.BearerToken})
	}
	for name, value := range a.Headers {
		c = append(c, credential{textproto.CanonicalMIMEHeaderKey(name), value})
	}
	return c
}

// prepare sets what every outgoing request carries: the configured
// credentials (they override what an adapter set) and the W3C trace context
// of ctx, when it holds one. h belongs to a clone, never to the caller.
func prepare(ctx context.Context, h http.Header, creds credentials) {
	for _, c := range creds {
		h[c.name] = []string{c.value}
	}
	propagation.TraceContext{}.Inject(ctx, traceHeaders(h))
}

// classify turns an error of one attempt (or of reading its body) into the
// client's *Error. parent is the caller's context, ctx the call's own,
// bounded by the call timeout.
func classify(upstream string, parent, ctx context.Context, err error) *Error {
	kind := KindFailed
	switch {
	case errors.Is(parent.Err(), context.Canceled):
		kind = KindCanceled
	case ctx.Err() != nil:
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

// traceHeaders is a propagation carrier writing the W3C headers under their
// canonical names directly: http.Header.Set would canonicalise
// "traceparent" into a new string on every request.
type traceHeaders http.Header

func (c traceHeaders) Get(key string) string { return http.Header(c).Get(key) }

func (c traceHeaders) Set(key, value string) {
	switch key {
	case "traceparent":
		c["Traceparent"] = []string{value}
	case "tracestate":
		c["Tracestate"] = []string{value}
	default:
		http.Header(c).Set(key, value)
	}
}

func (c traceHeaders) Keys() []string { return propagation.HeaderCarrier(c).Keys() }
