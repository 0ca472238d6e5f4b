// Package cluster is the state the replicas of one deployment share: the
// per-user rate limit, duplicate detection, the consumers' quotas and the
// orgs' API allowance. With the memory store each replica keeps them to
// itself (a limit multiplies with the replica count, a duplicate sent to
// two replicas is never seen); with the redis store the decisions are
// taken in Redis, one round trip each, and hold across replicas.
//
// Redis is never allowed to stop traffic: every call is bounded by a
// timeout, and when Redis fails, is slow or refuses, the decision is taken
// by the replica's own in-memory limiter, detector, counters and view of
// the allowance (fail open), or, for the rate limit and the quotas with
// FailClosed, refused with an error the caller answers 503. After FailureThreshold failures in a row the replica stops asking
// for RetryInterval, then lets one request probe; recovery needs nothing
// from an operator. Failures are counted, the state is a gauge, and a
// warning is logged at most once per warnEvery.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/restgate/gateway/gateway/config"
)

// Operations, the op label of the store's metrics.
const (
	OpRateLimit  = "ratelimit"
	OpDuplicates = "duplicates"
)

// States of the shared store, the values of the state gauge.
const (
	// StateUp: decisions are taken in Redis (also the memory store's
	// state: nothing is failing).
	StateUp = 0
	// StateProbing: after RetryInterval, one request tries Redis again
	// while the others still decide locally.
	StateProbing = 1
	// StateDown: Redis failed FailureThreshold times in a row; every
	// decision is local until the next probe.
	StateDown = 2
)

// Recorder receives the store's metrics (gateway/metrics implements it).
// Calls must not block.
type Recorder interface {
	// ClusterStoreCall observes one call to Redis that was sent, by
	// operation, with its outcome.
	ClusterStoreCall(op string, d time.Duration, err error)
	// ClusterStoreFallback counts a decision taken locally because Redis
	// failed or was not asked (down).
	ClusterStoreFallback(op string)
	// ClusterStoreState sets the state gauge (StateUp, StateProbing,
	// StateDown).
	ClusterStoreState(state int)
}

// Store is the shared store, or its absence (memory). Build it once per
// process with Open; it outlives configuration reloads. Safe for
// concurrent use.
type Store struct {
	client     redis.UniversalClient // nil: memory
	prefix     string
	failClosed bool
	guard      *guard
	// redis, rec and logger make the response cache's tier (CacheTier),
	// made once and closed with the store.
	redis     config.Redis
	rec       Recorder
	logger    *slog.Logger
	cacheOnce sync.Once
	cache     *CacheTier
	// gcra runs gcraSource by its SHA-1 (EVALSHA), loading it when Redis
	// does not know it (after a restart); the others likewise.
	gcra          *redis.Script
	loadAllowance *redis.Script
	saveAllowance *redis.Script
	quota         *redis.Script
}

// Open builds the store of cfg (validated). The memory store needs nothing
// and never fails. The redis store makes a client without waiting for
// Redis: a Redis that is not there yet is one that fails, and the gateway
// starts and serves anyway. It routes go-redis's own log, process-wide, to
// logger at debug level (the store's warnings say what matters).
func Open(cfg config.Cluster, rec Recorder, logger *slog.Logger) (*Store, error) {
	rec.ClusterStoreState(StateUp)
	if cfg.Store != config.StoreRedis {
		return &Store{}, nil
	}
	client, err := newClient(cfg.Redis)
	if err != nil {
		return nil, fmt.Errorf("cluster.redis: %w", err)
	}
	redis.SetLogger(debugLogger{logger})
	r := cfg.Redis
	return &Store{
		client:     client,
		prefix:     r.KeyPrefix,
		failClosed: cfg.FailClosed,
		guard:      newGuard(r.Timeout, r.FailureThreshold, r.RetryInterval, rec, logger),
		redis:      r,
		rec:        rec,
		logger:     logger,
		gcra:       redis.NewScript(gcraSource),

		loadAllowance: redis.NewScript(loadAllowanceSource),
		saveAllowance: redis.NewScript(saveAllowanceSource),
		quota:         redis.NewScript(quotaSource),
	}, nil
}

// Shared reports whether decisions are shared across replicas (redis).
func (s *Store) Shared() bool { return s.client != nil }

// Close closes the connections to Redis. Decisions asked of the store after
// Close are taken locally.
func (s *Store) Close() error {
	if s.client == nil {
		return nil
	}
	err := s.client.Close()
	s.cacheOnce.Do(func() {}) // a tier is made before Close or never
	if s.cache != nil {
		err = errors.Join(err, s.cache.client.Close())
	}
	return err
}

// debugLogger is go-redis's logger on slog, at debug level.
type debugLogger struct{ l *slog.Logger }

func (d debugLogger) Printf(ctx context.Context, format string, v ...any) {
	d.l.DebugContext(ctx, "redis client", "msg", fmt.Sprintf(format, v...))
}

// errLocal says the decision was taken locally without asking Redis (down).
type errLocal struct{}

func (errLocal) Error() string { return "the shared store is down: not asked" }

// warnEvery spaces the warnings about a failing store.
const warnEvery = 10 * time.Second
