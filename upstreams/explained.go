package upstreams

import (
	"context"
	"errors"
)

// errExplained is what the breaker is told of an attempt whose 5xx answer
// the caller explained (WithFailureCheck): excluded from its counts.
var errExplained = errors.New("5xx answer explained by the caller")

type failureCheckKey struct{}

// WithFailureCheck returns ctx whose calls ask explained about every 5xx
// answer before the breaker counts it. explained gets the answer's *Error
// (KindFailed, with the status and the body's text) and returns true when
// the failure is the caller's own business rather than the backend's, as a
// second read can show: a claim that lost a race to another claim fails
// inside the engine, which answers 500, though the engine is well. An
// explained answer is neither counted by the breaker (as success or as
// failure) nor retried; the call still returns its *Error, and what it
// means for the client is the caller's to say.
//
// explained runs on the calling goroutine, inside the call, while the call
// holds its bulkhead slot: it may call the same upstream with a context
// without the check (a call that finds the bulkhead full or the breaker
// half-open fails, and the answer then counts).
func WithFailureCheck(ctx context.Context, explained func(*Error) bool) context.Context {
	return context.WithValue(ctx, failureCheckKey{}, explained)
}

// explainedFailure reports whether ctx's check explains e.
func explainedFailure(ctx context.Context, e *Error) bool {
	check, _ := ctx.Value(failureCheckKey{}).(func(*Error) bool)
	return check != nil && check(e)
}
