package middleware

import (
	"container/list"
	"context"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
)

// RateLimiter keeps one token bucket per user, at most maxUsers of them: the
// least recently seen user's bucket is forgotten first, so memory stays
// bounded whatever the number of callers. Safe for concurrent use.
type RateLimiter struct {
	limit rate.Limit
	burst int
	max   int

	mu    sync.Mutex
	users map[string]*list.Element
	order *list.List // front: most recently seen
}

type userBucket struct {
	user    string
	limiter *rate.Limiter
}

// NewRateLimiter allows each user rps requests per second with bursts of
// burst, tracking at most maxUsers users.
func NewRateLimiter(rps float64, burst, maxUsers int) *RateLimiter {
	return &RateLimiter{limit: rate.Limit(rps), burst: burst, max: max(maxUsers, 1),
		users: make(map[string]*list.Element), order: list.New()}
}

// Limiter decides whether a user may send one more request now.
// RateLimiter decides in this process; gateway/cluster's limiter across
// replicas. Allow returns true and the tokens the user has left
// (fractional: the next whole one is on its way), or false and the wait
// before the next allowed request when the user has none left. An error
// means no decision could be taken (a shared store that fails closed): the
// request is refused as unavailable. Allow must return within a bounded
// time whatever ctx says.
type Limiter interface {
	Allow(ctx context.Context, user string, now time.Time) (ok bool, wait time.Duration, left float64, err error)
}

// Allow takes a token for user at now and returns the tokens left; when
// none is left it returns the wait until one is. It never fails; ctx is not
// used.
func (l *RateLimiter) Allow(_ context.Context, user string, now time.Time) (bool, time.Duration, float64, error) {
	ok, wait, left := l.allow(user, now)
	return ok, wait, left, nil
}

func (l *RateLimiter) allow(user string, now time.Time) (bool, time.Duration, float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b *userBucket
	if el, ok := l.users[user]; ok {
		l.order.MoveToFront(el)
		b = el.Value.(*userBucket)
	} else {
		if l.order.Len() >= l.max {
			oldest := l.order.Back()
			delete(l.users, oldest.Value.(*userBucket).user)
			l.order.Remove(oldest)
		}
		b = &userBucket{user: user, limiter: rate.NewLimiter(l.limit, l.burst)}
		l.users[user] = l.order.PushFront(b)
	}
	r := b.limiter.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second, 0
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d, 0
	}
	return true, 0, b.limiter.TokensAt(now)
}

// Len is the number of users tracked.
func (l *RateLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

// RatePolicy is the per-user rate limit (auth.rateLimit) as RateLimit
// describes it to callers.
type RatePolicy struct {
	RequestsPerSecond float64
	Burst             int
}

// RateLimit answers RATE_LIMITED (429 with Retry-After in whole seconds) when
// the authenticated caller has used up their allowance, and CALLOUT_FAILED
// (503, Retry-After: 1) when the limiter could take no decision (a shared
// store failing closed). It runs after Authenticate, so the key is a
// verified user id, never a client's claim. Every answer it lets through or
// refuses describes the limit in the RateLimit fields (ratelimitfields.go):
// the policy "rate" of burst requests per burst/rate seconds, the tokens
// left and the seconds until the next one (the wait, when refused).
func RateLimit(next http.Handler, l Limiter, p RatePolicy, w *call.Writer, now func() time.Time) http.Handler {
	interval := time.Duration(float64(time.Second) / p.RequestsPerSecond)
	policy := appendPolicyItem(nil, "rate", int64(p.Burst), int64(math.Ceil(float64(p.Burst)/p.RequestsPerSecond)))
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := call.From(r.Context())
		ok, wait, left, err := l.Allow(r.Context(), c.Identity.UserID, now())
		if err != nil {
			w.Error(rw, r, c, &envelope.Error{ID: envelope.CalloutFailed, Status: http.StatusServiceUnavailable,
				RetryAfter: 1, Detail: "the rate limit store is unavailable", Cause: err})
			return
		}
		var buf [64]byte
		if !ok {
			secs := ceilSeconds(wait)
			addFields(rw.Header(), policy, appendLimitItem(buf[:0], "rate", 0, secs))
			w.Error(rw, r, c, &envelope.Error{ID: envelope.RateLimited, Args: []string{strconv.FormatInt(secs, 10), c.Identity.UserID},
				RetryAfter: int(secs)})
			return
		}
		whole := math.Floor(left)
		token := time.Duration((1 - (left - whole)) * float64(interval))
		addFields(rw.Header(), policy, appendLimitItem(buf[:0], "rate", int64(whole), ceilSeconds(token)))
		next.ServeHTTP(rw, r)
	})
}
