package cache

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/upstreams"
)

// writer invalidates, after a write reached the backend, the cached reads
// of the resource it wrote, of that resource's ancestors (its collection)
// and of everything under it, in every version, on every replica.
type writer struct {
	rs   *Routes
	rp   *RoutePlan
	next call.Handler
}

func (w *writer) serve(r *http.Request, c *call.Call) (call.Result, error) {
	x := &upstreams.CacheExchange{}
	c.Upstream.Cache = x
	res, err := w.next(r, c)
	// A write refused before it reached the backend changed nothing; one
	// that reached it may have, whatever it answered (a timeout too).
	if x.Calls() > 0 {
		w.rs.cache.invalidate(r.Context(), writeMarks(w.rp.Route.Spec.Upstream, resourceOf(w.rp, r)))
	}
	return res, err
}

// invalidate bumps names here and, through the shared tier, everywhere.
// When the tier cannot take it, every replica's answers are dropped once
// it can (owe), since the others did not hear of this write.
func (c *Cache) invalidate(ctx context.Context, names []uint64) {
	c.marks.bump(names)
	if c.shared == nil {
		return
	}
	if err := c.shared.Bump(context.WithoutCancel(ctx), names); err != nil {
		c.owe(err)
	}
}

// owe remembers that other replicas missed an invalidation: the next
// settle drops every replica's answers.
func (c *Cache) owe(err error) {
	if !c.owed.Swap(true) {
		c.logger.Warn("response cache: an invalidation did not reach the shared store; every replica's cached answers are dropped once it is back",
			"err", err)
	}
}

// settle pays what owe remembered, as soon as the shared tier answers.
func (c *Cache) settle(ctx context.Context) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if c.owed.Load() && c.shared.Up() && c.shared.Bump(ctx, nil) == nil {
			c.owed.Store(false)
			c.logger.Info("response cache: the shared store is back; every replica's cached answers were dropped")
		}
	}
}

// ErrPurgeNotShared says a purge took effect on this replica only: the
// shared tier did not take it (the others drop everything once it does).
var ErrPurgeNotShared = errors.New("purged on this replica; the shared store did not take it, and every replica's answers are dropped once it is back")

// Purge invalidates cached answers on every replica: those of the route
// whose template is route, or those whose path is prefix or under it
// (whole segments: /v1/sobjects, not /v1/sob), or, with neither, all of
// them.
func (c *Cache) Purge(ctx context.Context, route, prefix string) error {
	var names []uint64
	if route != "" {
		names = append(names, markOf(markRoute, route))
	}
	if prefix = strings.TrimSuffix(prefix, "/"); prefix != "" {
		names = append(names, markOf(markPath, prefix))
	}
	if names == nil {
		c.marks.dropAll()
		c.mem.InvalidateAll()
	} else {
		c.marks.bump(names)
	}
	if c.shared == nil {
		return nil
	}
	if err := c.shared.Bump(context.WithoutCancel(ctx), names); err != nil {
		c.owe(err)
		return ErrPurgeNotShared
	}
	return nil
}
