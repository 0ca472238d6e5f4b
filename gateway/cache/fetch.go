package cache

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/sync/singleflight"

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
	res, err := rd.join(r.Context(), func() *http.Request { return detach(r, c) }, lk, &c.Upstream.Timing)
	if err != nil {
		return nil, false, gaveUp(r.Context())
	}
	if res.Err != nil {
		return nil, false, res.Err
	}
	f := res.Val.(*flight)
	leader := f.leader != nil && f.leader.Context().Value(requestKey{}) == r
	return f, leader, nil
}

// join waits, until ctx ends, for this replica's backend call of lk's key,
// making it with the request detached() returns unless one is under way,
// and adds the time it spent to timing. A call under way that began before
// lk.found was fetched can bring back nothing newer than lk.found (the
// answer another replica stored, stale by now): then lk's own call is
// joined or made.
func (rd *reader) join(ctx context.Context, detached func() *http.Request, lk *lookup, timing *upstreams.Timing) (singleflight.Result, error) {
	for try := 0; ; try++ {
		ch := rd.rs.cache.flights.DoChan(lk.key, func() (any, error) { return rd.flight(detached(), lk) })
		select {
		case res := <-ch:
			f, _ := res.Val.(*flight)
			if f != nil {
				timing.Add(f.upstream)
			}
			if try == 0 && res.Err == nil && f != nil && lk.found != nil && !newer(f.entry, lk.found) {
				continue
			}
			return res, nil
		case <-ctx.Done():
			return singleflight.Result{}, ctx.Err()
		}
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
	seq := cache.marks.current()
	other, sharedSeq, unlock := cache.acrossReplicas(ctx, lk)
	defer unlock()
	if other != nil {
		f.entry, f.stored, f.elsewhere = other, true, true
		cache.keep(lk, other, seq)
		return f, nil
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
		if e := rd.notFound(err, x, now); e != nil {
			f.entry = e
			if f.stored = cache.put(ctx, lk, e, seq, sharedSeq); !f.stored {
				f.reason = "shared-store-down"
			}
			return f, nil
		}
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

// put stores e under lk's key in the shared tier (remembering sharedSeq;
// not when it is -1) and in memory (remembering seq): in that order, so
// that an answer this replica serves is one the others can read. False
// when neither took it.
func (c *Cache) put(ctx context.Context, lk *lookup, e *Entry, seq, sharedSeq int64) bool {
	stored := false
	if c.shared != nil && sharedSeq >= 0 {
		remote := *e
		remote.seq = sharedSeq
		ttl := time.Until(e.Until)
		stored = c.shared.Store(ctx, sharedKey(lk.key), remote.encode(), ttl) == nil
	}
	if c.keep(lk, e, seq) {
		stored = true
	}
	return stored
}
