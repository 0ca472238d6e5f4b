// Package upstreams holds what faces the backends: one adapter package per
// backend contract, the shared client every adapter sends through (transport,
// circuit breaker, bulkhead, timeout, retry, trace propagation), and the
// reference sandbox servers in upstreams/sandbox.
//
// Adapters depend only on the Doer interface, so a test can hand them a plain
// *http.Client while the gateway hands them a *Client. Every failure an
// adapter returns is an *Error, so the gateway maps failures to response
// codes in one place without knowing which backend produced them.
package upstreams

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Doer sends one request to a backend. *Client implements it with breaker,
// bulkhead, timeouts and retries; *http.Client also satisfies it, which is
// what adapter tests use.
//
// A Doer backed by *Client returns an *Error for transport failures,
// timeouts, an open breaker, a full bulkhead, a cancelled caller and 5xx
// answers; 1xx-4xx answers come back as a response for the adapter to read.
// Adapters must still treat a 5xx response as a failure (ReadStatusError),
// because a plain *http.Client returns it as a response, and classify the
// errors of Do with TransportError.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// ContextDoer is a Doer that also sends a request under a context given
// apart from it, ignoring the request's own (Client is one): a prebuilt
// request goes out under each call's context without a copy per call.
type ContextDoer interface {
	Doer
	DoContext(ctx context.Context, req *http.Request) (*http.Response, error)
}

// AsContextDoer is d when it is a ContextDoer; otherwise a ContextDoer
// whose DoContext sends through d's Do a copy of the request bound to ctx
// (WithContext), or the request itself when its context is ctx already.
func AsContextDoer(d Doer) ContextDoer {
	if cd, ok := d.(ContextDoer); ok {
		return cd
	}
	return bindingDoer{d}
}

// bindingDoer is AsContextDoer's for a plain Doer (an *http.Client).
type bindingDoer struct{ Doer }

func (d bindingDoer) DoContext(ctx context.Context, req *http.Request) (*http.Response, error) {
	if req.Context() != ctx {
		req = req.WithContext(ctx)
	}
	return d.Do(req)
}

// transport is what a Client sends its attempts through.
type transport interface {
	http.RoundTripper
	CloseIdleConnections()
}

// deadlineTransport is a transport that bounds an exchange and the
// reading of its answer's body by a deadline without a timer context (as
// *h1client.Transport does with socket deadlines), failing past it with an error
// for which errors.Is(err, context.DeadlineExceeded) holds. Cancellation
// still comes from the request's context.
type deadlineTransport interface {
	RoundTripBy(req *http.Request, deadline time.Time) (*http.Response, error)
}

// Kind classifies an upstream failure; the gateway derives the client's
// status from it.
type Kind int

const (
	// KindRejected: the backend answered 4xx. Error.Status holds its status.
	KindRejected Kind = iota + 1
	// KindFailed: transport error, reset connection, or a 5xx answer (502).
	KindFailed
	// KindTimeout: the call's deadline passed (504).
	KindTimeout
	// KindOpen: the breaker is open; nothing was sent (503 with Retry-After).
	KindOpen
	// KindBulkheadFull: too many calls in flight to this upstream (503).
	KindBulkheadFull
	// KindCanceled: the gateway's own client went away (logged as 499).
	KindCanceled
	// KindInvalid: the backend answered 2xx with a body the adapter cannot
	// read (502).
	KindInvalid
	// KindCredentials: the backend refused the gateway's own credentials or
	// permissions (401, a 403 that is not a business refusal), or a new
	// access token could not be had (502). Never the client's fault.
	KindCredentials
	// KindLimited: the backend is rate-limiting or overloaded (429, 503,
	// REQUEST_LIMIT_EXCEEDED): 503 with RetryAfter.
	KindLimited
	// KindRetired: the backend retired the resource or the API version the
	// gateway is configured for (410): 502.
	KindRetired
	// KindReserved: the rest of the org's API allowance is reserved for
	// essential calls (AllowanceSettings.Reserve); nothing was sent (503
	// with RetryAfter).
	KindReserved
)

// String names the kind for logs and the upstream-call metric's outcome label.
func (k Kind) String() string {
	switch k {
	case KindRejected:
		return "rejected"
	case KindFailed:
		return "failed"
	case KindTimeout:
		return "timeout"
	case KindOpen:
		return "open"
	case KindBulkheadFull:
		return "bulkhead_full"
	case KindCanceled:
		return "canceled"
	case KindInvalid:
		return "invalid"
	case KindCredentials:
		return "credentials"
	case KindLimited:
		return "limited"
	case KindRetired:
		return "retired"
	case KindReserved:
		return "reserved"
	}
	return "unknown"
}

// Error is the one failure type adapters and the shared client return.
type Error struct {
	// Upstream is the configured upstream name ("accounts", "workflow", ...).
	Upstream string
	// Kind says what went wrong.
	Kind Kind
	// Status is the backend's HTTP status when it answered, else 0.
	Status int
	// Message is the backend's own error text (never a credential); it goes
	// to the system message of the error envelope.
	Message string
	// Code is the backend's error code when it gave one (MALFORMED_QUERY,
	// NOT_FOUND, ...).
	Code string
	// RetryAfter is, for KindOpen, how long until the breaker half-opens;
	// for KindLimited, the backend's Retry-After (or a computed one; the
	// allowance's estimate for REQUEST_LIMIT_EXCEEDED); for KindReserved,
	// when the org's usage is estimated to leave the reserve.
	RetryAfter time.Duration
	// Err is the underlying error, if any.
	Err error
}

// Error describes the failure without any credential.
func (e *Error) Error() string {
	msg := fmt.Sprintf("upstream %s: %s", e.Upstream, e.Kind)
	if e.Status != 0 {
		msg += fmt.Sprintf(" (status %d)", e.Status)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// AsError returns the *Error in err's chain, or nil.
func AsError(err error) *Error {
	// AsType, unlike As, needs no heap target: the breaker asks this of
	// every finished attempt, nil included.
	ue, _ := errors.AsType[*Error](err)
	return ue
}

// NewStatusError builds the error for a backend answer with a non-2xx
// status: KindRejected for 4xx, KindFailed otherwise.
func NewStatusError(upstream string, status int, code, message string) *Error {
	kind := KindFailed
	if status >= 400 && status < 500 {
		kind = KindRejected
	}
	return &Error{Upstream: upstream, Kind: kind, Status: status, Code: code, Message: message}
}

// Observer receives what the shared client sees, for metrics. Implementations
// must be safe for concurrent use and must not block.
type Observer interface {
	// CallDone reports one finished call (after retries) with its outcome:
	// "success", or a Kind's String() ("rejected", "failed", "timeout", ...).
	CallDone(upstream, outcome string, d time.Duration)
	// BreakerChanged reports a breaker transition; states are "closed",
	// "half-open" and "open".
	BreakerChanged(upstream, from, to string)
}

type nopObserver struct{}

func (nopObserver) CallDone(string, string, time.Duration) {}
func (nopObserver) BreakerChanged(string, string, string)  {}

// StatusFor maps an error of a call to the status the gateway answers with,
// in one place: KindCanceled 499 (logged only; the client is gone),
// KindTimeout 504, KindOpen, KindBulkheadFull, KindLimited and
// KindReserved 503, KindRejected the backend's status, everything else
// (KindCredentials and KindRetired included) 502. nil is 200.
func StatusFor(err error) int {
	if err == nil {
		return http.StatusOK
	}
	if ue := AsError(err); ue != nil {
		switch ue.Kind {
		case KindCanceled:
			return StatusClientClosedRequest
		case KindTimeout:
			return http.StatusGatewayTimeout
		case KindOpen, KindBulkheadFull, KindLimited, KindReserved:
			return http.StatusServiceUnavailable
		case KindRejected:
			if ue.Status >= 400 && ue.Status < 500 {
				return ue.Status
			}
		}
		return http.StatusBadGateway
	}
	switch {
	case errors.Is(err, context.Canceled):
		return StatusClientClosedRequest
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	}
	return http.StatusBadGateway
}

// StatusClientClosedRequest is nginx's 499: the client went away before the
// answer. It is logged and counted, never sent.
const StatusClientClosedRequest = 499
