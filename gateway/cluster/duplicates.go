package cluster

import (
	"context"
	"encoding/hex"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/restgate/gateway/gateway/duplicates"
)

// DuplicateDetector says whether a request was seen within its window
// (middleware.Duplicates). The replica's own one (duplicates.Detector) is
// the memory store's detector and the redis store's fallback.
type DuplicateDetector interface {
	Seen(ctx context.Context, req duplicates.Request, now time.Time) bool
}

// Duplicates detects a request repeated within the window across replicas:
// one SET key PX window GET per request, on the request's digest. The key
// is rewritten at each sighting, so the window slides exactly as the
// Detector's does (a request repeated every half window is a duplicate each
// time); Redis forgets it one window after the last sighting.
type Duplicates struct {
	store  *Store
	local  DuplicateDetector
	window time.Duration
}

// Duplicates returns the detector of requests repeated within window. With
// the memory store it is local itself; with the redis store local takes
// the decisions Redis cannot. A window of zero or less reports nothing.
func (s *Store) Duplicates(window time.Duration, local DuplicateDetector) DuplicateDetector {
	if s.client == nil || window <= 0 {
		return local
	}
	return &Duplicates{store: s, local: local, window: window}
}

// Seen records req and reports whether the same request was seen within the
// window. It never fails: when Redis cannot answer, this replica's memory
// does.
func (d *Duplicates) Seen(ctx context.Context, req duplicates.Request, now time.Time) bool {
	s := d.store
	digest := req.Digest()
	key := make([]byte, 0, len(s.prefix)+4+2*len(digest))
	key = append(append(key, s.prefix...), "dup:"...)
	key = hex.AppendEncode(key, digest[:])
	var dup bool
	err := s.guard.run(ctx, OpDuplicates, func(ctx context.Context) error {
		err := s.client.SetArgs(ctx, string(key), "1", redis.SetArgs{TTL: d.window, Get: true}).Err()
		switch {
		case errors.Is(err, redis.Nil):
			return nil // first sighting
		case err == nil:
			dup = true
		}
		return err
	})
	// This replica's memory learns every request too, so that when Redis
	// fails it still knows what this replica saw.
	localDup := d.local.Seen(ctx, req, now)
	if err == nil {
		return dup
	}
	s.guard.rec.ClusterStoreFallback(OpDuplicates)
	return localDup
}
