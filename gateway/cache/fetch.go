package cache

import (
	"context"
	"net/http"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/upstreams"
)

// flight is what one backend call (or another replica's) brought back for
// every request waiting on it.
type flight struct {
	entry *Entry
	// stored says the entry is kept; reason says why not.
	stored bool
	reason string
	// revalidated: the backend answered 304 to the stale entry's
	// validators; elsewhere: another replica's call answered.
	revalidated, elsewhere bool
	// leader is the request whose call it was (nil for a background
	// revalidation); upstream is the time the call spent.
	leader   *http.Request
	upstream time.Duration
}

// fetch waits for the backend call of lk's key, made by the first request
// of this replica that missed it on a context none of them can cancel; r
// still gives up at its own deadline. leader says the call was r's.
func (rd *reader) fetch(r *http.Request, c *call.Call, lk *lookup) (*flight, bool, error) {
	cache := rd.rs.cache
	ch := cache.flights.DoChan(lk.key, func() (any, error) { return rd.flight(detach(r, c), lk) })
	select {
	case res := <-ch:
		f, _ := res.Val.(*flight)
		if f != nil {
			c.Upstream.Timing.Add(f.upstream)
		}
		if res.Err != nil {
			return nil, false, res.Err
		}
		leader := f.leader != nil && f.leader.Context().Value(requestKey{}) == r
		return f, leader, nil
	case <-r.Context().Done():
		return nil, false, gaveUp(r.Context())
	}
}

// requestKey marks a detached request with the request it was made for, so
// that fetch tells the leader from the requests that joined its call.
type requestKey struct{}

// flight makes the backend call of lk's key for every request of this
// replica waiting on it: with a shared tier, it first takes the key's lock,
// or waits (at most CoalesceWait) for the replica that holds it to store
// the answer. fr is detached (detach).
func (rd *reader) flight(fr *http.Request, lk *lookup) (any, error) {
	cache, pol := rd.rs.cache, rd.rp.Policy
	ctx := fr.Context()
	f := &flight{leader: fr}
	seq, sharedSeq := cache.marks.current(), int64(-1)
	if cache.shared != nil && cache.shared.Up() {
		var err error
		var taken bool
		taken, sharedSeq, err = cache.shared.Lock(ctx, lockKey(lk.key), cache.o.CoalesceWait)
		switch {
		case err != nil:
			sharedSeq = -1 // not stored in Redis: its marks were not read
		case taken:
			defer cache.shared.Unlock(context.WithoutCancel(ctx), lockKey(lk.key))
		default:
			if e := cache.awaitOther(ctx, lk); e != nil {
				f.entry, f.stored, f.elsewhere = e, true, true
				if cache.memoryUsable() {
					local := *e
					local.seq = seq
					cache.mem.Set(lk.key, &local)
				}
				return f, nil
			}
			if taken, sharedSeq, err = cache.shared.Lock(ctx, lockKey(lk.key), cache.o.CoalesceWait); err != nil {
				sharedSeq = -1
			} else if taken {
				defer cache.shared.Unlock(context.WithoutCancel(ctx), lockKey(lk.key))
			}
		}
	}
	fc := call.From(ctx)
	x := &upstreams.CacheExchange{}
	stale := lk.found
	if stale != nil {
		x.IfNoneMatch, x.IfModifiedSince = stale.IfNoneMatch, stale.IfModifiedSince
	}
	fc.Upstream.Cache = x
	res, err := rd.next(fr, fc)
	f.upstream = fc.Upstream.Timing.Total()
	now := cache.now()
	first, answered := x.First()
	if stale != nil && x.NotModified() {
		e := *stale
		e.Stored = now
		v := pol.judge(first, now)
		e.Fresh, e.NoStale = now.Add(v.fresh), v.noStale
		e.Until = rd.until(e.Fresh)
		if first.ETag != "" {
			e.IfNoneMatch = first.ETag
		}
		if first.LastModified != "" {
			e.IfModifiedSince = first.LastModified
		}
		f.entry, f.revalidated = &e, true
		f.stored = cache.put(ctx, lk, &e, seq, sharedSeq)
		return f, nil
	}
	if err != nil {
		return f, err
	}
	answer, err := rd.rs.writer.Render(fc, res)
	if err != nil {
		return f, err
	}
	e := &Entry{Answer: *answer, ETag: etagOf(answer), Stored: now}
	f.entry = e
	v := verdict{reason: "status"}
	if answer.Status == http.StatusOK && answered {
		v = pol.judge(first, now)
	} else if answer.Status == http.StatusOK {
		v = verdict{store: true, fresh: pol.TTL} // answered without a backend call
	}
	e.Fresh, e.NoStale = now.Add(v.fresh), v.noStale
	e.Until = rd.until(e.Fresh)
	if answered && x.Calls() == 1 {
		e.IfNoneMatch = first.ETag
		e.IfModifiedSince = first.LastModified
		if e.IfModifiedSince == "" && e.IfNoneMatch == "" {
			// RFC 9110 13.1.3: with no Last-Modified, the answer's Date
			// is a date the backend can compare with
			e.IfModifiedSince = first.Date
		}
	}
	switch {
	case !v.store:
		f.reason = v.reason
	case len(answer.Body) > cache.o.MaxEntryBytes:
		f.reason = "too-large"
	case !e.Until.After(now):
		f.reason = "expired"
	default:
		f.stored = cache.put(ctx, lk, e, seq, sharedSeq)
		if !f.stored {
			f.reason = "shared-store-down"
		}
	}
	return f, nil
}

// until is how long an entry fresh until fresh is kept: its stale windows,
// and as long again as its ttl for a conditional revalidation.
func (rd *reader) until(fresh time.Time) time.Time {
	p := rd.rp.Policy
	keep := max(p.StaleWhileRevalidate, p.StaleIfError, p.TTL)
	return fresh.Add(min(keep, maxLifetime))
}

// put stores e under lk's key in memory (remembering seq) and in the
// shared tier (remembering sharedSeq; not when it is -1). False when
// neither took it.
func (c *Cache) put(ctx context.Context, lk *lookup, e *Entry, seq, sharedSeq int64) bool {
	stored := false
	if c.memoryUsable() {
		local := *e
		local.seq = seq
		c.mem.Set(lk.key, &local)
		stored = true
	}
	if c.shared != nil && sharedSeq >= 0 {
		remote := *e
		remote.seq = sharedSeq
		ttl := time.Until(e.Until)
		if err := c.shared.Store(ctx, sharedKey(lk.key), remote.encode(), ttl); err == nil {
			stored = true
		}
	}
	return stored
}

// awaitOther waits, at most CoalesceWait, for the replica holding lk's
// lock to store the answer; nil when it did not (it failed, it let go, the
// wait ran out, the tier failed).
func (c *Cache) awaitOther(ctx context.Context, lk *lookup) *Entry {
	deadline := c.now().Add(c.o.CoalesceWait)
	pause := 2 * time.Millisecond
	for {
		e, locked, err := c.sharedLookup(ctx, lk, lockKey(lk.key))
		switch {
		case e != nil:
			return e
		case err != nil || !locked || !c.now().Before(deadline):
			return nil
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil
		}
		pause = min(pause*2, 50*time.Millisecond)
	}
}
