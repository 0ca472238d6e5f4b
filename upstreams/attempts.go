package upstreams

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Attempt is one try of a call, as the client saw it.
type Attempt struct {
	Upstream string
	// Request is the attempt's request (its URL, method and context).
	Request *http.Request
	// Number counts the call's attempts from 1.
	Number int
	// Status is the backend's status; 0 when there was no answer.
	Status int
	// Err is the attempt's failure; nil when it was answered.
	Err *Error
	// Duration is the attempt's, to its answer's header.
	Duration time.Duration
	// Decision is what the client did next: "answered", "retrying" (after
	// Wait), or why it stopped ("not retried: ...", "not sent: ...").
	Decision string
	Wait     time.Duration
}

// AttemptObserver hears of every attempt of every call, when the Observer
// given to NewClient implements it (LogAttempts does). It is called
// synchronously and must not block.
type AttemptObserver interface {
	Attempt(a Attempt)
}

// LogAttempts returns obs, which also logs every attempt at debug level to
// logger: upstream, method, URL (without its query), attempt, status or
// error, duration and decision. When logger does not log debug it returns
// obs itself, so that the client does nothing more per attempt.
func LogAttempts(obs Observer, logger *slog.Logger) Observer {
	if obs == nil {
		obs = nopObserver{}
	}
	if logger == nil || !logger.Enabled(context.Background(), slog.LevelDebug) {
		return obs
	}
	return attemptLogger{Observer: obs, logger: logger}
}

type attemptLogger struct {
	Observer
	logger *slog.Logger
}

// ConcurrencyLimit and SetBreakerState pass on what the wrapped observer
// takes beyond Observer (the limit and breaker gauges), which embedding the
// interface would hide.
func (l attemptLogger) ConcurrencyLimit(upstream string, limit int) {
	if o, ok := l.Observer.(limitObserver); ok {
		o.ConcurrencyLimit(upstream, limit)
	}
}

func (l attemptLogger) SetBreakerState(upstream, state string) {
	if o, ok := l.Observer.(interface{ SetBreakerState(upstream, state string) }); ok {
		o.SetBreakerState(upstream, state)
	}
}

func (l attemptLogger) Attempt(a Attempt) {
	attrs := make([]slog.Attr, 0, 10)
	u := *a.Request.URL
	u.RawQuery, u.Fragment, u.User = "", "", nil
	attrs = append(attrs, slog.String("upstream", a.Upstream), slog.String("method", a.Request.Method),
		slog.String("url", u.String()), slog.Int("attempt", a.Number), slog.Float64("ms", float64(a.Duration)/float64(time.Millisecond)))
	if a.Status != 0 {
		attrs = append(attrs, slog.Int("status", a.Status))
	}
	if a.Err != nil {
		attrs = append(attrs, slog.String("error", a.Err.Error()))
	}
	attrs = append(attrs, slog.String("decision", a.Decision))
	if a.Wait > 0 {
		attrs = append(attrs, slog.Duration("wait", a.Wait))
	}
	if sc := trace.SpanContextFromContext(a.Request.Context()); sc.IsValid() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
	}
	l.logger.LogAttrs(a.Request.Context(), slog.LevelDebug, "upstream attempt", attrs...)
}
