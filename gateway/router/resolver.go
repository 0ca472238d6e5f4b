package router

import "fmt"

// Resolver returns what the handlers of a route need of the configured
// upstream named upstream: an adapter's client, or a backend to proxy to.
// When there is none (no upstream of that name, options the adapter
// refuses) it returns an error saying why, never a zero value with a nil
// error. Every route kind that calls an upstream takes one in its factory.
type Resolver[T any] func(upstream string) (T, error)

// Resolve returns what r resolves for upstream; the error, also when r is
// nil, names the upstream, for the factory to fail with.
func (r Resolver[T]) Resolve(upstream string) (T, error) {
	var zero T
	if r == nil {
		return zero, fmt.Errorf("upstream %q: nothing resolves upstreams for this route kind", upstream)
	}
	v, err := r(upstream)
	if err != nil {
		return zero, fmt.Errorf("upstream %q: %w", upstream, err)
	}
	return v, nil
}
