package middleware

import (
	"net/http"
	"strconv"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/quota"
)

// QuotaRecorder counts the quota decisions (gateway/metrics implements
// it). Calls must not block.
type QuotaRecorder interface {
	QuotaDecision(policy string, allowed bool)
}

// QuotaDeps are what Quota decides with.
type QuotaDeps struct {
	Policies *quota.Policies
	Counter  *quota.Counter
	// Route finds a request's route, for the quotas counted per upstream.
	Route   RouteOf
	Writer  *call.Writer
	Metrics QuotaRecorder
	Now     func() time.Time
}

// maxCounts is the most windows a request is counted in: a day and a month,
// overall and for its upstream.
const maxCounts = 4

// Quota marks essential callers (their calls pass an upstream's allowance
// reserve) and counts each request of a limited caller in its quota's
// windows: a request that finds one spent is answered RATE_LIMITED (429)
// with Retry-After until that window starts again, and CALLOUT_FAILED 503
// when the store could not decide (a shared store failing closed). Every
// answer of a limited caller carries its windows in the RateLimit fields:
// RateLimit-Policy "day";q=1000;w=86400 and RateLimit "day";r=998;t=3600,
// t being the seconds until the window starts again. It runs after
// Authenticate (the caller is verified) and counts every request that gets
// there, whatever answers it later, a cache included.
func Quota(next http.Handler, d QuotaDeps) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := call.From(r.Context())
		pol, consumer, essential := d.Policies.Resolve(c.Identity)
		if essential {
			c.Upstream.Essential = true
		}
		if pol == nil {
			next.ServeHTTP(rw, r)
			return
		}
		upstream := ""
		if pol.PerUpstream() {
			if rt := d.Route(r); rt != nil {
				upstream = rt.Spec.Upstream
			}
		}
		now := d.Now()
		var counts [maxCounts]quota.Count
		req := quota.Request{Consumer: consumer, Policy: pol.Name, Counts: pol.Counts(counts[:0], consumer, upstream, now)}
		if len(req.Counts) == 0 {
			next.ServeHTTP(rw, r)
			return
		}
		spent, err := d.Counter.Store.Take(r.Context(), &req)
		if err != nil {
			d.Writer.Error(rw, r, c, &envelope.Error{ID: envelope.CalloutFailed, Status: http.StatusServiceUnavailable,
				RetryAfter: 1, Detail: "the quota store is unavailable", Cause: err})
			return
		}
		d.Metrics.QuotaDecision(pol.Name, spent < 0)
		setQuotaFields(rw.Header(), req.Counts, now)
		if spent >= 0 {
			n := &req.Counts[spent]
			secs := max(ceilSeconds(n.Reset.Sub(now)), 1)
			d.Writer.Error(rw, r, c, &envelope.Error{ID: envelope.RateLimited, RetryAfter: int(secs),
				Args:   []string{strconv.FormatInt(secs, 10), c.Identity.UserID},
				Detail: "the quota " + strconv.Quote(n.Name) + " of " + strconv.FormatInt(n.Quota, 10) + " requests is used up"})
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// setQuotaFields adds the windows' policy and limit items to h.
func setQuotaFields(h http.Header, counts []quota.Count, now time.Time) {
	var buf [2 * maxCounts * 48]byte
	policy := buf[: 0 : len(buf)/2]
	limit := buf[len(buf)/2 : len(buf)/2]
	for i := range counts {
		n := &counts[i]
		if i > 0 {
			policy = append(policy, ", "...)
			limit = append(limit, ", "...)
		}
		policy = appendPolicyItem(policy, n.Name, n.Quota, n.Window)
		limit = appendLimitItem(limit, n.Name, n.Remaining(), ceilSeconds(n.Reset.Sub(now)))
	}
	addFields(h, policy, limit)
}
