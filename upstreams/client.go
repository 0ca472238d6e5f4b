package upstreams

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Client is the one way the gateway calls a backend. Each configured
// upstream gets its own Client, so one backend's failures, slowness and
// connections never touch another's. Safe for concurrent use.
//
// A call passes, in order: the concurrency limit (which follows the
// backend's latency, with a short queue; see ConcurrencySettings), the call
// timeout, then for each attempt the circuit breaker and the
// transport; idempotent calls are retried within the retry budget. When
// the call's context carries a recording OpenTelemetry span (the gateway
// traces the request), each attempt is a client span under it (span.go).
type Client struct {
	name      string
	given     Settings
	s         Settings
	creds     credentials
	transport transport
	// bounded is transport when it bounds a call by a deadline itself, so
	// that a call needs no timer context; nil otherwise.
	bounded deadlineTransport
	breaker *breaker
	limit   *limiter
	retry   *retrier
	obs     Observer
	// attempts hears of every attempt; nil (no cost) unless obs is an
	// AttemptObserver.
	attempts AttemptObserver
	// refusal says which 403s are business refusals (see ClassifyStatus).
	refusal BusinessRefusal
	// tokens, when not nil, supplies the bearer token (OAuth).
	tokens *Tokens
	// ownFlowControl: the caller waits out 429 and 503 itself
	// (WithOwnFlowControl).
	ownFlowControl bool
	// allowance, when not nil, guards the org's API allowance
	// (WithAllowance).
	allowance Allowance
}

// Option sets a part of a Client that is code rather than settings.
type Option func(*Client)

// WithBusinessRefusal makes the 403s that f recognises reach the adapter as
// rejections (KindRejected 403) instead of credential failures. Without it
// every 403 is a failure of the gateway's credentials (ClassifyStatus).
func WithBusinessRefusal(f BusinessRefusal) Option { return func(c *Client) { c.refusal = f } }

// WithTokens makes the client send t's access token as its bearer token,
// instead of Settings.Auth.BearerToken, and renew it once when the backend
// answers 401 (see Do).
func WithTokens(t *Tokens) Option { return func(c *Client) { c.tokens = t } }

// WithOwnFlowControl is for a caller that paces its own requests, such as
// the call log's shipper, which holds a batch the backend cannot take and
// sends it again after a backoff of its own. The backend's flow control, a
// 429 or 503 answer (KindLimited), is then that caller's to wait out:
//
//   - it is not counted by the breaker, as a success or as a failure: a
//     backend that says "not now" is up, and an open breaker would hold
//     every request for the whole OpenTimeout whatever Retry-After the
//     backend sent (a dead backend still opens it: refused connections,
//     timeouts, 500, 502, 504);
//   - its Error.RetryAfter is the backend's Retry-After (bounded to [1s,
//     1h]), or zero when the backend sent none, so that the caller's own
//     backoff decides, instead of the breaker's OpenTimeout that callers
//     answering a client are given.
func WithOwnFlowControl() Option { return func(c *Client) { c.ownFlowControl = true } }

// NewClient builds the client of upstream name. s is validated (the errors
// are *FieldError, joined, with paths under "upstreams.<name>") and its zero
// fields take their defaults. obs may be nil; it is called synchronously and
// must not block.
func NewClient(name string, s Settings, obs Observer, opts ...Option) (*Client, error) {
	if errs := s.Validate("upstreams." + name); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if obs == nil {
		obs = nopObserver{}
	}
	d := s.WithDefaults()
	seed := uint64(time.Now().UnixNano())
	c := &Client{
		name:      name,
		given:     s,
		s:         d,
		creds:     newCredentials(d.Auth),
		transport: newTransport(d),
		breaker:   newBreaker(name, d.Breaker, obs),
		limit:     newLimiter(name, d.Concurrency, d.MaxConcurrent, obs),
		retry:     newRetrier(d.Retry, rand.NewPCG(seed, seed>>1|1)),
		obs:       obs,
	}
	c.bounded, _ = c.transport.(deadlineTransport)
	c.attempts, _ = obs.(AttemptObserver)
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Name is the upstream's configured name.
func (c *Client) Name() string { return c.name }

// Settings are the settings as given to NewClient (without defaults), so a
// reload can keep the client when they did not change.
func (c *Client) Settings() Settings { return c.given }

// BreakerState is "closed", "half-open" or "open".
func (c *Client) BreakerState() string { return c.breaker.state() }

// Close closes idle connections. Calls in flight finish normally.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// Do sends req and implements Doer. It returns a response only for 1xx-4xx
// answers the adapter must read (a business refusal among the 403s);
// 401, other 403s, 410, 429 and every 5xx are an *Error classified by
// ClassifyStatus, and every other failure is an *Error too (see StatusFor).
// With Tokens, a 401 renews the token once and sends the request again,
// whatever its method (the backend refused it before running it); a
// request whose body cannot be produced again (no GetBody) is then a
// KindCredentials failure. The response's Body
// must be closed: closing it ends the call, releasing its concurrency slot and
// timeout and reporting its outcome, so an adapter judges a 2xx answer
// before it closes the body, and closes it with Reject when it cannot use
// it. A read error on that Body is an *Error too (KindFailed, KindTimeout
// or KindCanceled) and ends the call at once, and so does a read past the
// call's answer cap (ErrAnswerTooLarge).
//
// req is not modified; credentials and the trace context of req.Context()
// are set on a copy. Requests are not redirected.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	return c.DoContext(req.Context(), req)
}

// DoContext is Do under ctx in place of req's own context (which it
// ignores): an adapter sends one prebuilt request under each call's
// context without a copy of it bound to that context (WithContext's).
func (c *Client) DoContext(ctx context.Context, req *http.Request) (*http.Response, error) {
	k := &call{c: c, parent: ctx, start: time.Now()}
	k.state = CallStateFrom(k.parent)
	if c.allowance != nil {
		if e := k.admitAllowance(); e != nil {
			closeRequestBody(req)
			k.report(KindReserved.String(), k.elapsed())
			return nil, e
		}
	}
	var opts CallOptions
	if k.state != nil {
		opts = k.state.Options
		if x := k.state.Cache; x != nil && x.begin() {
			k.exchange, k.conditional = x, x.conditional(req)
		}
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = c.s.Timeout
	}
	// The wait for a slot is part of the call: it ends at the call's
	// deadline too, or a call would leave the queue with no time left
	// and fail as the backend's timeout.
	if !c.limit.acquire(k.parent, k.start.Add(timeout)) {
		closeRequestBody(req)
		k.report(KindBulkheadFull.String(), k.elapsed())
		return nil, &Error{Upstream: c.name, Kind: KindBulkheadFull}
	}
	k.slot = time.Now()
	k.bound(timeout)
	c.retry.onCall()

	resp, done, err := k.send(req, opts.NoRetry)
	if err != nil {
		k.end(err, 0)
		return nil, err
	}
	if k.exchange != nil {
		notModified := k.conditional && resp.StatusCode == http.StatusNotModified
		k.exchange.record(resp, notModified)
		if notModified {
			// the backend's answer to the cache, not to the adapter
			drainAndClose(resp)
			done(nil)
			k.end(nil, resp.StatusCode)
			return nil, &Error{Upstream: c.name, Kind: KindRejected, Status: http.StatusNotModified,
				Message: "not modified", Err: ErrNotModified}
		}
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		done(nil)
		k.end(nil, resp.StatusCode)
		return resp, nil
	}
	limit := c.answerCap(opts)
	if resp.ContentLength > limit && resp.StatusCode < http.StatusMultipleChoices {
		_ = resp.Body.Close() // unread: the connection is closed, not drained
		done(nil)             // the backend answered; its size is this route's problem
		e := answerTooLarge(c.name, limit)
		k.end(e, 0)
		return nil, e
	}
	k.body = body{rc: resp.Body, k: k, done: done, status: resp.StatusCode, left: limit}
	k.body.refs.Store(1)
	resp.Body = &k.body
	return resp, nil
}

// call is one Do: the caller's context, the call's bound, and what must
// be released when it ends.
type call struct {
	c      *Client
	parent context.Context
	// state is parent's CallState, nil when it carries none.
	state *CallState
	// ctx is the attempts' context: parent itself when the transport
	// enforces deadline, otherwise parent bounded by the call timeout and
	// released by cancel.
	ctx      context.Context
	cancel   context.CancelFunc
	deadline time.Time
	// ended is set when the call ends without a timer context, which would
	// otherwise be cancelled then.
	ended atomic.Bool
	start time.Time
	// slot is when the call got its concurrency slot.
	slot time.Time
	// sent is set once an attempt goes to the backend: the concurrency
	// limit measures only calls that reached it.
	sent bool
	// body is the answer's Body, kept here so that a call is one
	// allocation.
	body body
	// span is the client span of the attempt whose answer is returned,
	// nil when the call is not traced.
	span trace.Span
	// exchange is the response cache's exchange when this is the first
	// call of its request (CallState.Cache), else nil; conditional says
	// the call sends its validators.
	exchange    *CacheExchange
	conditional bool
	// out is the first attempt's request when it shares req's context
	// (outgoing).
	out http.Request
}

// bound sets the call's deadline, timeout from its start or the caller's
// own when that is earlier. Only a transport that cannot enforce it gets a
// timer context: with one that can, a call sets and stops no timer.
func (k *call) bound(timeout time.Duration) {
	if k.c.bounded == nil {
		k.ctx, k.cancel = context.WithDeadline(k.parent, k.start.Add(timeout))
		k.deadline, _ = k.ctx.Deadline()
		return
	}
	k.ctx = k.parent
	k.deadline = k.start.Add(timeout)
	if d, ok := k.parent.Deadline(); ok && d.Before(k.deadline) {
		k.deadline = d
	}
}

// expired reports whether the call's bound has passed: the caller went
// away, the deadline passed, or the call already ended.
func (k *call) expired() bool {
	if k.cancel != nil {
		return k.ctx.Err() != nil
	}
	return k.parent.Err() != nil || k.ended.Load() || !time.Now().Before(k.deadline)
}

// classify is the *Error of an attempt or of reading its body.
func (k *call) classify(err error) *Error {
	return classifyCall(k.c.name, k.parent, k.expired(), err)
}

// roundTrip sends one attempt's request.
func (k *call) roundTrip(out *http.Request) (*http.Response, error) {
	if k.cancel == nil {
		return k.c.bounded.RoundTripBy(out, k.deadline)
	}
	return k.c.transport.RoundTrip(out)
}

// send runs the attempts. On success done reports the attempt's outcome to
// the breaker and must be called once the body is finished.
func (k *call) send(req *http.Request, noRetry bool) (*http.Response, func(error), *Error) {
	c := k.c
	canRetry := !noRetry && replayable(req)
	var last *Error
	renewed := false
	for attempt := 1; ; attempt++ {
		out := k.outgoing(req, attempt == 1 && !renewed)
		if k.conditional {
			k.exchange.setValidators(out.Header)
		}
		if (attempt > 1 || renewed) && req.GetBody != nil {
			b, err := req.GetBody()
			if err != nil {
				return nil, nil, last
			}
			out.Body = b
		}
		actx, span := k.startAttempt(req, attempt)
		done, open := c.breaker.allow()
		k.admitted(span)
		if open != nil {
			endAttempt(span, 0, open)
			if c.attempts != nil {
				c.attempts.Attempt(Attempt{Upstream: c.name, Request: out, Number: attempt, Err: open, Decision: "not sent: the breaker is open"})
			}
			closeRequestBody(out)
			if last != nil {
				// Opened under our own failures: the backend's answer says more.
				return nil, nil, last
			}
			return nil, nil, open
		}
		prepare(actx, out.Header, c.creds)
		var tok *accessToken
		if c.tokens != nil {
			var terr *Error
			if tok, terr = c.tokens.token(k.parent, k.deadline); terr != nil {
				endAttempt(span, 0, terr)
				closeRequestBody(out)
				done(terr)
				return nil, nil, terr
			}
			tok.apply(out)
		}

		var sent time.Time
		if c.attempts != nil {
			sent = time.Now()
		}
		k.sent = true
		resp, err := k.roundTrip(out)
		if err == nil && c.allowance != nil {
			k.observeUsage(resp.Header)
		}
		switch {
		case err != nil:
			last = k.classify(err)
		case resp.StatusCode < http.StatusOK || resp.StatusCode > 599:
			last = malformedStatus(c.name, resp)
		case resp.StatusCode == http.StatusUnauthorized && tok != nil && !renewed:
			// The session ended (INVALID_SESSION_ID): renew the token once
			// and send again, as the backend ran nothing.
			drainAndClose(resp)
			done(errStaleToken)
			endAttempt(span, resp.StatusCode, nil)
			c.tokens.invalidate(tok)
			renewed = true
			if out.Body != nil && out.Body != http.NoBody && req.GetBody == nil {
				return nil, nil, &Error{Upstream: c.name, Kind: KindCredentials, Status: http.StatusUnauthorized,
					Message: "the backend refused the access token and the request body cannot be sent again"}
			}
			attempt--
			continue
		case classifiedStatus(resp.StatusCode):
			if last = c.classifyAnswer(out, resp); last == nil {
				k.span = span
				if c.attempts != nil {
					c.attempts.Attempt(Attempt{Upstream: c.name, Request: out, Number: attempt, Status: resp.StatusCode,
						Duration: time.Since(sent), Decision: "answered"})
				}
				return resp, done, nil // a business refusal: the adapter reads it
			}
		case resp.StatusCode >= http.StatusInternalServerError:
			last = statusError(c.name, resp)
			if explainedFailure(k.parent, last) {
				done(errExplained)
				if c.attempts != nil {
					c.attempts.Attempt(Attempt{Upstream: c.name, Request: out, Number: attempt, Status: last.Status, Err: last,
						Duration: time.Since(sent), Decision: "not retried: the backend explained the failure"})
				}
				endAttempt(span, 0, last)
				return nil, nil, last
			}
		default:
			k.span = span // ended with the call, once its body is read
			if c.attempts != nil {
				c.attempts.Attempt(Attempt{Upstream: c.name, Request: out, Number: attempt, Status: resp.StatusCode,
					Duration: time.Since(sent), Decision: "answered"})
			}
			return resp, done, nil
		}
		if c.ownFlowControl && last.Kind == KindLimited {
			done(errFlowControl)
		} else {
			done(last)
		}
		endAttempt(span, 0, last)

		// A 503 is tried again like a 502 (an overloaded instance behind a
		// balancer); a 429 or REQUEST_LIMIT_EXCEEDED is not: the backend
		// asked for fewer calls, not more.
		retryable := (last.Kind == KindFailed || last.Kind == KindLimited) && (last.Status == 0 || retryableStatus(last.Status)) ||
			last.Kind == KindTimeout && !k.expired()
		var stop string
		switch {
		case !canRetry && noRetry:
			stop = "not retried: the route says noRetry"
		case !canRetry:
			stop = "not retried: the request is not idempotent (no Idempotency-Key) or its body cannot be sent again"
		case !retryable:
			stop = "not retried: this failure is not retried"
		case attempt >= c.retry.attempts:
			stop = "not retried: no attempts left"
		case !c.retry.spend():
			stop = "not retried: the retry budget is spent"
		}
		if stop != "" {
			if c.attempts != nil {
				c.attempts.Attempt(Attempt{Upstream: c.name, Request: out, Number: attempt, Status: last.Status, Err: last,
					Duration: time.Since(sent), Decision: stop})
			}
			return nil, nil, last
		}
		wait := c.retry.delay(attempt)
		if c.attempts != nil {
			c.attempts.Attempt(Attempt{Upstream: c.name, Request: out, Number: attempt, Status: last.Status, Err: last,
				Duration: time.Since(sent), Decision: "retrying", Wait: wait})
		}
		if !sleepUntil(k.ctx, k.deadline, wait) {
			if errors.Is(k.parent.Err(), context.Canceled) {
				return nil, nil, &Error{Upstream: c.name, Kind: KindCanceled, Err: k.parent.Err()}
			}
			return nil, nil, last
		}
	}
}

// drainAndClose reads what is left of an answer the call does not use, up
// to a bound, so its connection can serve the next attempt.
func drainAndClose(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
}

// outgoing is the request of one attempt: a shallow copy of req bound to
// the call's context, with a header map of its own that prepare may extend.
// The header's value slices and the URL are shared with req rather than
// copied as Clone would: neither transport modifies them and prepare only
// replaces whole entries, so req stays as the caller built it. When the
// call's context is its parent (a transport that enforces the deadline)
// the first attempt's copy lives in the call, not in an allocation of its
// own; a later attempt gets a fresh one, so an answer already handed out
// keeps its request.
func (k *call) outgoing(req *http.Request, first bool) *http.Request {
	var out *http.Request
	if first && k.cancel == nil {
		// k.ctx is k.parent; WithContext's copy, inlined, lives on the stack
		k.out = *req.WithContext(k.ctx)
		out = &k.out
	} else {
		out = req.WithContext(k.ctx)
	}
	h := make(http.Header, len(req.Header)+len(k.c.creds)+2) // +2: traceparent, tracestate
	for name, values := range req.Header {
		h[name] = values
	}
	out.Header = h
	return out
}

// end releases the call's resources and reports it; err nil is an answer
// with status.
func (k *call) end(err *Error, status int) {
	k.finish(err, status, k.release(err))
}

// finish ends the span of the attempt whose answer the caller read and
// reports the call's outcome; d is its duration, so the span ends when the
// call released its resources even when its outcome waited for an Answer.
func (k *call) finish(err *Error, status int, d time.Duration) {
	endAttemptAt(k.span, status, err, k.start.Add(d))
	k.report(outcomeOf(err, status), d)
}

// release frees the call's timeout and concurrency slot and adds its
// duration, which it returns, to the caller's timing: the call's time is
// the backend's until here, however long its outcome waits (see body).
func (k *call) release(err *Error) time.Duration {
	if k.cancel != nil {
		k.cancel()
	} else {
		k.ended.Store(true)
	}
	if k.sent {
		k.c.limit.release(time.Since(k.slot), err != nil && err.Kind == KindTimeout)
	} else {
		// Refused by the breaker, or no access token: nothing says how
		// the backend is doing.
		k.c.limit.free()
	}
	return k.elapsed()
}

// elapsed is the call's duration, added to the caller's timing.
func (k *call) elapsed() time.Duration {
	d := time.Since(k.start)
	if k.state != nil {
		k.state.Timing.Add(d)
	}
	return d
}

// outcomeOf is the upstream-call metric's outcome of a call that ended with
// err (nil: an answer with status).
func outcomeOf(err *Error, status int) string {
	switch {
	case err != nil:
		return err.Kind.String()
	case status >= http.StatusBadRequest:
		return KindRejected.String()
	}
	return "success"
}

// report tells the observer of a call that took d.
func (k *call) report(outcome string, d time.Duration) {
	k.c.obs.CallDone(k.c.name, outcome, d)
}

// body ends its call at the first of a read error, a read past the answer
// cap, or Close, not at EOF: the caller may still find the answer unusable
// (Reject). The call's timeout and concurrency slot are released and its
// duration measured then; its outcome (the breaker's count and the
// observer's report) waits, when an Answer read the body whole, for that
// Answer's Release too, so that whoever uses the answer can still reject it
// (Answer.Reject): refs counts the two.
type body struct {
	rc     io.ReadCloser
	k      *call
	done   func(error)
	status int
	once   sync.Once
	// rejected, set by Reject or Answer.Reject, is the outcome Close
	// reports.
	rejected *Error
	// left is what the answer cap still allows; a read that passes it
	// fails with ErrAnswerTooLarge.
	left int64
	// refs counts what the outcome waits for: the body's end, and the
	// Answer holding it (hold).
	refs atomic.Int32
	// ended and took are the body's end: its error and the call's
	// duration.
	ended *Error
	took  time.Duration
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if b.left -= int64(n); b.left < 0 {
		e := answerTooLarge(b.k.c.name, b.k.c.answerCap(b.k.options()))
		b.finish(e)
		return n, e
	}
	if err != nil && !errors.Is(err, io.EOF) {
		e := b.k.classify(err)
		b.finish(e)
		return n, e
	}
	return n, err
}

// Close ends the call as a success unless a read already failed or the
// caller rejected the answer: a caller that stops reading early has its
// answer.
func (b *body) Close() error {
	err := b.rc.Close()
	b.finish(b.rejected)
	return err
}

func (b *body) finish(e *Error) {
	b.once.Do(func() {
		b.ended, b.took = e, b.k.release(e)
		b.unref()
	})
}

// hold makes the call's outcome wait for unref (Answer.Release) as well;
// false when the call already ended.
func (b *body) hold() bool {
	for {
		n := b.refs.Load()
		if n == 0 {
			return false
		}
		if b.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// unref drops one of refs; the last reports the call's outcome: the
// body's end, or the rejection that came after it.
func (b *body) unref() {
	if b.refs.Add(-1) != 0 {
		return
	}
	e := b.ended
	if e == nil {
		e = b.rejected
	}
	if e == nil || errors.Is(e, ErrAnswerTooLarge) {
		b.done(nil) // not e: a nil *Error is a non-nil error
	} else {
		b.done(e)
	}
	b.k.finish(e, b.status, b.took)
}

// reject makes the call end as invalid when its answer is a 2xx: the
// caller cannot use it. It changes nothing once the outcome was reported.
func (b *body) reject(e *Error) {
	if b.rejected == nil && b.status >= 200 && b.status <= 299 {
		b.rejected = e
	}
}

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}
