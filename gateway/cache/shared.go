package cache

import (
	"context"
	"time"
)

// Shared is the tier of answers every replica shares (Redis, through
// gateway/cluster). Every call is bounded and may fail; a failure is a
// miss, never an error of the request.
type Shared interface {
	// Lookup returns the value stored under key (nil when none), the
	// highest sequence number among marks (with the floor), and whether
	// lock is held, in one round trip.
	Lookup(ctx context.Context, key, lock string, marks []uint64) (value []byte, newest int64, locked bool, err error)
	// Store keeps value under key for ttl.
	Store(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Lock takes lock for ttl unless another holds it, and returns the
	// current sequence number (what a fetch starting now remembers).
	Lock(ctx context.Context, lock string, ttl time.Duration) (taken bool, seq int64, err error)
	// Unlock releases a lock this replica took.
	Unlock(ctx context.Context, lock string)
	// Bump sets marks to a new sequence number (all marks: the floor,
	// when marks is nil) and tells every replica's Listen.
	Bump(ctx context.Context, marks []uint64) error
	// Listen calls heard with the marks every replica bumps (nil: all),
	// until ctx ends; it reconnects by itself, and calls heard(nil) after
	// reconnecting, since it may have missed some.
	Listen(ctx context.Context, heard func(marks []uint64))
	// Up reports whether the tier answers and Listen hears.
	Up() bool
}

// heard applies another replica's bump (or a reconnection) to this one's
// marks.
func (c *Cache) heard(names []uint64) {
	if names == nil {
		c.marks.dropAll()
		return
	}
	c.marks.bump(names)
}
