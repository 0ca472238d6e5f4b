package cache

import (
	"context"
	"time"
)

// acrossReplicas settles, with a shared tier, which replica calls the
// backend for lk's key: the one that takes the key's lock (the others wait,
// at most CoalesceWait, for it to store the answer). It returns the answer
// another replica stored meanwhile (nil: this replica calls the backend),
// the Redis sequence number the answer is stored with (-1: not in Redis,
// whose marks were not read) and what releases the lock. lk.found becomes
// the newest answer Redis holds, when that is newer and stale.
func (c *Cache) acrossReplicas(ctx context.Context, lk *lookup) (other *Entry, sharedSeq int64, unlock func()) {
	unlock = func() {}
	if c.shared == nil || !c.shared.Up() {
		return nil, -1, unlock
	}
	lock := lockKey(lk.key)
	taken, sharedSeq, err := c.shared.Lock(ctx, lock, c.o.CoalesceWait)
	switch {
	case err != nil:
		return nil, -1, unlock
	case taken:
		// Another replica may have stored an answer and let go between this
		// one's lookup and its lock: a fresh one is the answer, a stale one
		// (a revalidation that ran before this one) the one to revalidate.
		if e, _, _ := c.sharedLookup(ctx, lk, ""); e != nil && newer(e, lk.found) {
			if c.now().Before(e.Fresh) {
				c.shared.Unlock(context.WithoutCancel(ctx), lock)
				return e, -1, unlock
			}
			lk.found = e
		}
	default:
		if e := c.awaitOther(ctx, lk); e != nil {
			return e, -1, unlock
		}
		if taken, sharedSeq, err = c.shared.Lock(ctx, lock, c.o.CoalesceWait); err != nil {
			return nil, -1, unlock
		}
	}
	if taken {
		unlock = func() { c.shared.Unlock(context.WithoutCancel(ctx), lock) }
	}
	return nil, sharedSeq, unlock
}

// newer reports whether e, read from the shared tier, was fetched (or
// confirmed) after found, what this replica had when it missed: the stale
// answer another replica is revalidating is still in Redis, and is not an
// answer to wait for.
func newer(e, found *Entry) bool { return found == nil || e.Stored.After(found.Stored) }

// awaitOther waits, at most CoalesceWait, for the replica holding lk's
// lock to store an answer newer than lk.found; nil when it did not (it
// failed, it let go, the wait ran out, the tier failed).
func (c *Cache) awaitOther(ctx context.Context, lk *lookup) *Entry {
	deadline := c.now().Add(c.o.CoalesceWait)
	pause := 2 * time.Millisecond
	for {
		e, locked, err := c.sharedLookup(ctx, lk, lockKey(lk.key))
		switch {
		case e != nil && newer(e, lk.found):
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
