package router

import (
	"fmt"
	"sync"
)

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

// Shared returns a resolver that calls build once per upstream name and
// hands out that value (or that error) from then on, so that every route
// of an upstream shares one adapter and what it keeps (a cache, what it
// knows of the backend). It is safe for concurrent use.
func Shared[T any](build Resolver[T]) Resolver[T] {
	type built struct {
		v   T
		err error
	}
	var mu sync.Mutex
	seen := make(map[string]built)
	return func(upstream string) (T, error) {
		mu.Lock()
		defer mu.Unlock()
		if r, ok := seen[upstream]; ok {
			return r.v, r.err
		}
		v, err := build(upstream)
		seen[upstream] = built{v, err}
		return v, err
	}
}
