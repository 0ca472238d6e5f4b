package cache

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/upstreams"
)

// reader serves a cached route's GET (and HEAD).
type reader struct {
	rs   *Routes
	rp   *RoutePlan
	next call.Handler
}

// lookup is one request's view of its key.
type lookup struct {
	key  string
	deps []uint64
	// written: some route's writes invalidate the key's answers
	// (RoutePlan.Written).
	written bool
	// stale is the entry found, fresh or not; nil when none.
	found *Entry
}

func (rd *reader) serve(r *http.Request, c *call.Call) (call.Result, error) {
	cache, route := rd.rs.cache, rd.rp.Route.Template
	key, ok := keyOf(rd.rp, r, c)
	// A GET with a body (the model route maps the record it carries) is
	// answered from the body, which no key holds.
	if !ok || r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		cache.rec.CacheRequest(route, ResultBypass)
		return rd.next(r, c)
	}
	lk := &lookup{key: key, deps: readDeps(route, r.URL.EscapedPath(), rd.rp.Route.Spec.Upstream, resourceOf(rd.rp, r)),
		written: rd.rp.Written}
	now := cache.now()
	lk.found = cache.get(r.Context(), lk)
	pol := rd.rp.Policy
	if e := lk.found; e != nil {
		switch {
		case now.Before(e.Fresh):
			cache.rec.CacheRequest(route, ResultHit)
			return rd.answer(r, e, now, status{hit: true})
		case !e.NoStale && now.Before(e.Fresh.Add(pol.StaleWhileRevalidate)) && rd.revalidateLater(r, c, lk):
			cache.rec.CacheRequest(route, ResultStale)
			return rd.answer(r, e, now, status{hit: true, detail: "stale-while-revalidate"})
		}
	}
	f, leader, err := rd.fetch(r, c, lk)
	now = cache.now()
	if err != nil {
		if e := lk.found; e != nil && !e.NoStale && now.Before(e.Fresh.Add(pol.StaleIfError)) && backendFailed(err) {
			cache.rec.CacheRequest(route, ResultStale)
			return rd.answer(r, e, now, status{hit: true, detail: "stale-if-error", warn: true})
		}
		return call.Result{}, err
	}
	st := status{fwd: "miss", fwdStatus: f.entry.Answer.Status, stored: f.stored, detail: f.reason, collapsed: !leader || f.elsewhere}
	result := ResultMiss
	switch {
	case !leader || f.elsewhere:
		result = ResultCoalesced
	case f.revalidated:
		result, st.fwd, st.fwdStatus = ResultRevalidated, "stale", http.StatusNotModified
	case lk.found != nil:
		st.fwd = "stale"
	}
	cache.rec.CacheRequest(route, result)
	return rd.answer(r, f.entry, now, st)
}

// backendFailed reports whether err is the backend failing rather than
// refusing the request: a 5xx, a timeout, an open breaker, a full
// bulkhead, a backend rate limit, the org's allowance reserved for
// essential calls, an unreadable answer or a lost connection. Those may be
// answered with a stale entry (staleIfError); a 4xx, a credentials failure
// or a retired version may not.
func backendFailed(err error) bool {
	ue := upstreams.AsError(err)
	if ue == nil {
		return false
	}
	switch ue.Kind {
	case upstreams.KindFailed, upstreams.KindTimeout, upstreams.KindOpen, upstreams.KindBulkheadFull,
		upstreams.KindLimited, upstreams.KindReserved, upstreams.KindInvalid:
		return true
	}
	return false
}

// get finds the key's entry in memory, then in the shared tier (which
// promotes it to memory) when memory has none or a stale one; nil when
// there is none valid.
func (c *Cache) get(ctx context.Context, lk *lookup) *Entry {
	var held *Entry
	if c.memoryUsable(lk) {
		if e, ok := c.mem.GetIfPresent(lk.key); ok {
			if c.marks.valid(e.seq, lk.deps) {
				held = e
			} else {
				c.mem.Invalidate(lk.key)
			}
		}
	}
	// A stale copy in memory may have been revalidated by another replica:
	// Redis is asked before this replica revalidates it, but not while its
	// own revalidation runs (which asks Redis itself), so that the readers
	// served stale meanwhile do not each ask.
	if c.shared == nil || (held != nil && c.now().Before(held.Fresh)) {
		return held
	}
	if _, running := c.revalidating.Load(lk.key); running && held != nil {
		return held
	}
	seq := c.marks.current()
	e := c.sharedGet(ctx, lk)
	if e == nil || (held != nil && !newer(e, held)) {
		return held
	}
	c.keep(lk, e, seq)
	return e
}

// sharedGet reads the key's entry from the shared tier; nil when absent,
// invalidated, unreadable or when the tier fails.
func (c *Cache) sharedGet(ctx context.Context, lk *lookup) *Entry {
	e, _, _ := c.sharedLookup(ctx, lk, "")
	return e
}

func (c *Cache) sharedLookup(ctx context.Context, lk *lookup, lock string) (*Entry, bool, error) {
	b, newest, locked, err := c.shared.Lookup(ctx, sharedKey(lk.key), lock, lk.deps)
	if err != nil || b == nil {
		return nil, locked, err
	}
	e, err := decodeEntry(b)
	if err != nil || newest > e.seq || !c.now().Before(e.Until) {
		return nil, locked, err
	}
	return e, locked, nil
}

func sharedKey(key string) string { return "e:" + key }
func lockKey(key string) string   { return "l:" + key }

// revalidateLater starts the background revalidation of lk's stale entry
// and reports true (the stale entry is the answer), or, when one runs
// already for the key, reports true alone; false when too many run (the
// request revalidates it itself). However many requests read the stale
// entry meanwhile, the key has one revalidation and holds one token.
func (rd *reader) revalidateLater(r *http.Request, c *call.Call, lk *lookup) bool {
	cache := rd.rs.cache
	if _, running := cache.revalidating.LoadOrStore(lk.key, struct{}{}); running {
		return true
	}
	select {
	case cache.revalidations <- struct{}{}:
	default:
		cache.revalidating.Delete(lk.key)
		return false
	}
	fr := detach(r, c)
	go func() {
		defer func() {
			cache.revalidating.Delete(lk.key)
			<-cache.revalidations
		}()
		_, _ = rd.join(context.Background(), func() *http.Request { return fr }, lk, &call.From(fr.Context()).Upstream.Timing)
	}()
	return true
}

// detach copies what a backend call made on behalf of r may read once r
// is answered: the request (its URL, headers and route variables), a Call
// of its own, on a context that r's end does not cancel.
func detach(r *http.Request, c *call.Call) *http.Request {
	fc := &call.Call{Start: time.Now(), Identity: c.Identity, TraceID: c.TraceID, Route: c.Route, Version: c.Version,
		Options: c.Options}
	fc.Upstream.Trace = c.Upstream.Trace
	fc.Upstream.Options = c.Upstream.Options
	ctx := context.WithValue(context.WithoutCancel(r.Context()), requestKey{}, r)
	fr := r.Clone(call.With(ctx, fc))
	fr.Body = http.NoBody
	return fr
}

// errGaveUp is a waiter's own deadline or cancellation while it waited on
// a backend call that goes on for the others.
func gaveUp(ctx context.Context) error {
	err := ctx.Err()
	kind := upstreams.KindCanceled
	if errors.Is(err, context.DeadlineExceeded) {
		kind = upstreams.KindTimeout
	}
	return call.Upstream(&upstreams.Error{Kind: kind, Err: err, Message: "gave up waiting for the backend"}, "")
}
