package upstreams

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// AllowanceSettings protect an org's allowance of API calls
// (upstreams.<name>.allowance): a Salesforce org has one allowance of API
// requests per rolling 24 hours for every integration it has, and reports
// its usage on every answer (Sforce-Limit-Info: api-usage=18/15000). The
// upstreams of data and files routes read it whatever this says; Reserve
// keeps the last part of it for essential calls, and Poll reads the
// /limits resource when nothing else did for that long.
// docs/guides/allowance.md explains both.
type AllowanceSettings struct {
	// Reserve is the part of the allowance kept for essential routes and
	// callers (routes[].essential, auth.apiKeys[].essential,
	// auth.essential): a percentage of the org's limit ("10%") or a
	// number of calls ("1500"). When fewer calls than this remain, every
	// other call is refused before it reaches the backend (CALLOUT_FAILED
	// 503 with Retry-After). Default none: only a REQUEST_LIMIT_EXCEEDED
	// of the org stops calls.
	Reserve string `yaml:"reserve"`
	// Poll reads the org's usage from GET /services/data/vXX.X/limits
	// (data upstreams) when no answer reported it for this long, so that
	// the gauges stay current while traffic is idle. Each poll is one API
	// call of the allowance (only the versions resource, /services/data,
	// is free). At least 1m. Default off.
	Poll time.Duration `yaml:"poll"`
}

// MinAllowancePoll bounds AllowanceSettings.Poll from below: every poll
// costs one call of the allowance it watches.
const MinAllowancePoll = time.Minute

// Configured reports whether a reserve or a poll is set.
func (a AllowanceSettings) Configured() bool { return a.Reserve != "" || a.Poll != 0 }

// ReserveOf is the reserve in calls for an org whose limit is limit: the
// percentage of it rounded up, or the number given. 0 when no reserve is
// set or it does not parse (Validate refuses it then).
func (a AllowanceSettings) ReserveOf(limit int64) int64 { return a.Rule().Of(limit) }

// ReserveRule is AllowanceSettings.Reserve read once, for a guard that
// applies it to every call.
type ReserveRule struct {
	n       float64
	percent bool
}

// Rule reads the reserve; one that does not parse is no reserve.
func (a AllowanceSettings) Rule() ReserveRule {
	n, percent, ok := parseReserve(a.Reserve)
	if !ok {
		return ReserveRule{}
	}
	return ReserveRule{n: n, percent: percent}
}

// Of is the reserve in calls for an org whose limit is limit.
func (r ReserveRule) Of(limit int64) int64 {
	if r.percent {
		return int64(math.Ceil(r.n * float64(limit) / 100))
	}
	return int64(r.n)
}

// parseReserve reads "10%", "2.5%" or "1500".
func parseReserve(s string) (n float64, percent bool, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false, true
	}
	if p, cut := strings.CutSuffix(s, "%"); cut {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || f < 0 || f >= 100 {
			return 0, true, false
		}
		return f, true, true
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil || i < 0 {
		return 0, false, false
	}
	return float64(i), false, true
}

// validate reports the problems of a with paths under path.
func (a AllowanceSettings) validate(path string) []error {
	var errs []error
	if _, percent, ok := parseReserve(a.Reserve); !ok {
		problem := `must be a percentage of the org's limit below 100% ("10%") or a number of calls ("1500"), not ` + strconv.Quote(a.Reserve)
		if percent {
			problem = "must be a percentage from 0% to below 100%, not " + strconv.Quote(a.Reserve)
		}
		errs = append(errs, &FieldError{Path: path + ".reserve", Problem: problem})
	}
	if a.Poll != 0 && a.Poll < MinAllowancePoll {
		errs = append(errs, &FieldError{Path: path + ".poll", Problem: fmt.Sprintf(
			"must be 0 (off) or at least %s: every poll is one call of the allowance", MinAllowancePoll)})
	}
	return errs
}

// LimitInfoHeader is the answer header in which a Salesforce org reports
// its API usage: "api-usage=18/15000", the calls of the last 24 hours and
// the org's limit, possibly followed by other members
// ("; per-app-api-usage=17/250(appName=x)", "; api-bursts=1/750").
const LimitInfoHeader = "Sforce-Limit-Info"

// Usage is an org's API usage as one answer reported it.
type Usage struct {
	// Used is the calls counted in the rolling 24 hours; it can exceed
	// Limit (Salesforce lets an org run past it for a while).
	Used int64
	// Limit is the org's allowance for 24 hours; always positive.
	Limit int64
}

// maxUsage bounds a figure read from a header: no org has an allowance of
// a trillion calls, and the packed form in CallState needs 32 bits.
const maxUsage = math.MaxUint32

// ParseLimitInfo reads the api-usage member of a Sforce-Limit-Info value.
// It reports false when there is none or it is malformed (a limit of zero,
// a negative or absurd figure).
func ParseLimitInfo(v string) (Usage, bool) {
	for member := range strings.SplitSeq(v, ";") {
		name, value, found := strings.Cut(strings.TrimSpace(member), "=")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "api-usage") {
			continue
		}
		used, limit, found := strings.Cut(strings.TrimSpace(value), "/")
		if !found {
			return Usage{}, false
		}
		u, err1 := strconv.ParseInt(used, 10, 64)
		l, err2 := strconv.ParseInt(limit, 10, 64)
		if err1 != nil || err2 != nil || u < 0 || l <= 0 || u > maxUsage || l > maxUsage {
			return Usage{}, false
		}
		return Usage{Used: u, Limit: l}, true
	}
	return Usage{}, false
}

// Allowance guards the allowance of the org behind one upstream (see
// WithAllowance); gateway/allowance implements it. Its methods are called
// on the request path and must return within a bounded time.
type Allowance interface {
	// Admit decides whether a call may be sent; essential calls pass the
	// reserve. When it may not, wait is the Retry-After to answer with.
	Admit(ctx context.Context, essential bool) (wait time.Duration, ok bool)
	// Observe records the usage an answer reported.
	Observe(ctx context.Context, u Usage)
	// Exceeded records that the org answered REQUEST_LIMIT_EXCEEDED and
	// returns the Retry-After to answer that call with.
	Exceeded(ctx context.Context) time.Duration
}

// WithAllowance makes the client consult a before each call (a refused
// call is a KindReserved *Error, nothing sent), report to it the usage
// every answer's Sforce-Limit-Info carries (also recorded in the call's
// CallState.Usage), and tell it of every REQUEST_LIMIT_EXCEEDED, whose
// Retry-After it then decides. A call whose context carries no CallState
// is the gateway's own (a version check, a poll) and counts as essential.
func WithAllowance(a Allowance) Option { return func(c *Client) { c.allowance = a } }

// admitAllowance asks the allowance whether k may be sent; nil when it
// may, else the refusal.
func (k *call) admitAllowance() *Error {
	st := k.state
	essential := st == nil || st.Essential || st.Options.Essential
	wait, ok := k.c.allowance.Admit(k.parent, essential)
	if ok {
		return nil
	}
	return &Error{Upstream: k.c.name, Kind: KindReserved, RetryAfter: max(wait, time.Second),
		Message: "the rest of the org's API allowance is reserved for essential calls; nothing was sent"}
}

// observeUsage reports the usage an answer's header carries.
func (k *call) observeUsage(h http.Header) {
	v := h[LimitInfoHeader]
	if len(v) == 0 {
		return
	}
	u, ok := ParseLimitInfo(v[0])
	if !ok {
		return
	}
	if k.state != nil {
		k.state.Usage.store(u)
	}
	k.c.allowance.Observe(k.parent, u)
}

// UsageSeen is the last API usage the calls of one CallState were told
// (Sforce-Limit-Info), for the call log. Safe for concurrent use; the zero
// value holds nothing.
type UsageSeen struct {
	// packed is Limit<<32 | Used; 0 is nothing seen (a limit is never 0).
	packed atomic.Uint64
}

func (s *UsageSeen) store(u Usage) {
	s.packed.Store(uint64(u.Limit)<<32 | uint64(u.Used))
}

// Load returns the usage last seen and whether any was.
func (s *UsageSeen) Load() (Usage, bool) {
	p := s.packed.Load()
	if p == 0 {
		return Usage{}, false
	}
	return Usage{Used: int64(p & math.MaxUint32), Limit: int64(p >> 32)}, true
}
