package cluster

import (
	"context"
	"strconv"
	"time"
)

// RateLimiter takes per-user rate-limit decisions (middleware.Limiter).
// The replica's own one (middleware.RateLimiter) is the memory store's
// limiter and the redis store's fallback.
type RateLimiter interface {
	Allow(ctx context.Context, user string, now time.Time) (bool, time.Duration, float64, error)
}

// gcraSource is the rate limit as a generic cell rate algorithm, evaluated
// atomically in Redis: one key per user holds its theoretical arrival time
// (TAT) in microseconds of Redis's own clock, so the replicas' clocks never
// matter. With T = 1/rate and a burst of b, a request at now is allowed
// when max(TAT, now) + T - b*T <= now; the key then holds the new TAT and
// expires when the bucket would be full again, so an idle user costs
// nothing. This is exactly golang.org/x/time/rate's token bucket (b tokens,
// refilled at rate, starting full): the wait it returns for a refusal is
// x/time/rate's delay for one token.
//
// KEYS[1] the user's key; ARGV[1] T in microseconds (fractional); ARGV[2] b.
// Returns {1, tokens left in thousandths} when allowed, {0, wait in
// microseconds} when not.
const gcraSource = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local new = tat + interval
local allow_at = new - burst * interval
if allow_at > now then
  return {0, math.ceil(allow_at - now)}
end
redis.call('SET', KEYS[1], string.format('%.3f', new), 'PX', math.ceil((new - now) / 1000) + 1)
return {1, math.floor((now - allow_at) * 1000 / interval)}
`

// Limiter is a per-user rate limit: requestsPerSecond with bursts of
// burst, the meaning of auth.rateLimit. With the redis store it holds
// across replicas; see Store.Limiter.
type Limiter struct {
	store    *Store
	local    RateLimiter
	interval string // T in microseconds, formatted once
	burst    string
}

// Limiter returns the rate limit of rps requests per second with bursts of
// burst per user. With the memory store it is local itself. With the redis
// store local takes the decisions Redis cannot (down, slow, refusing)
// unless the store fails closed; it must have the same rate and burst.
func (s *Store) Limiter(rps float64, burst int, local RateLimiter) RateLimiter {
	if s.client == nil {
		return local
	}
	return &Limiter{store: s, local: local, interval: strconv.FormatFloat(1e6/rps, 'f', -1, 64),
		burst: strconv.Itoa(burst)}
}

// Allow takes one request of user's allowance and returns the tokens
// left (fractional: the next whole one is on its way). It returns false and
// the wait before the next allowed request when none is left. err is
// non-nil only when the store fails closed and Redis could not decide; the
// caller then refuses the request as unavailable.
func (l *Limiter) Allow(ctx context.Context, user string, now time.Time) (bool, time.Duration, float64, error) {
	s := l.store
	var allowed bool
	var wait time.Duration
	var left float64
	err := s.guard.run(ctx, OpRateLimit, func(ctx context.Context) error {
		res, err := s.gcra.Run(ctx, s.client, []string{s.prefix + "rl:" + user}, l.interval, l.burst).Int64Slice()
		if err == nil && len(res) != 2 {
			err = errReply
		}
		if err == nil {
			allowed = res[0] == 1
			if allowed {
				left = float64(res[1]) / 1000
			} else {
				wait = time.Duration(res[1]) * time.Microsecond
			}
		}
		return err
	})
	if err == nil {
		return allowed, wait, left, nil
	}
	if s.failClosed {
		return false, 0, 0, err
	}
	s.guard.rec.ClusterStoreFallback(OpRateLimit)
	return l.local.Allow(ctx, user, now)
}

// errReply is a reply of the wrong shape (a key of the prefix used by
// something else, a proxy in the way).
const errReply = errorString("unexpected reply from Redis")

type errorString string

func (e errorString) Error() string { return string(e) }
