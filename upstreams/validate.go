package upstreams

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Defaults of Settings, applied by WithDefaults to every zero field.
const (
	DefaultTimeout               = 10 * time.Second
	DefaultConnectTimeout        = 2 * time.Second
	DefaultResponseHeaderTimeout = 8 * time.Second
	DefaultMaxIdleConnsPerHost   = 64
	DefaultMaxConcurrent         = 1024
	DefaultMinLimit              = 8
	DefaultInitialLimit          = 64
	DefaultTolerance             = 2.0
	DefaultQueue                 = 4096
	DefaultMaxAnswerBytes        = 8 << 20
	DefaultConsecutiveFailures   = 10
	DefaultFailureRatio          = 0.5
	DefaultMinRequests           = 20
	DefaultBreakerInterval       = 60 * time.Second
	DefaultBucketPeriod          = 10 * time.Second
	DefaultOpenTimeout           = 30 * time.Second
	DefaultHalfOpenRequests      = 1
	DefaultRetryAttempts         = 2
	DefaultRetryBackoff          = 25 * time.Millisecond
	DefaultRetryBudget           = 0.1
)

// MaxRetryAttempts bounds Retry.Attempts: more tries than this only multiply
// the load on a backend that is already failing.
const MaxRetryAttempts = 10

// SandboxURL is the Settings.URL that selects the embedded reference server.
// "sandbox:<flavour>" selects another flavour of it (for the accounts
// contract, "sandbox:original" behaves as the original account controller);
// which flavours exist is the sandbox's to say when it starts.
const SandboxURL = "sandbox"

// SandboxFlavour reports whether url selects the embedded reference server
// and which flavour of it: "" for "sandbox", the word after the colon for
// "sandbox:<flavour>" (lower-case letters and digits).
func SandboxFlavour(url string) (flavour string, ok bool) {
	if url == SandboxURL {
		return "", true
	}
	f, found := strings.CutPrefix(url, SandboxURL+":")
	if !found || f == "" || strings.Trim(f, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return "", false
	}
	return f, true
}

// Settings.Transport values.
const (
	// TransportFast is upstreams/h1client for plain http:// backends.
	TransportFast = "fast"
	// TransportStd is net/http's Transport for every backend.
	TransportStd = "std"
)

// Concurrency.Mode values.
const (
	// ConcurrencyAdaptive moves the limit with the backend's latency.
	ConcurrencyAdaptive = "adaptive"
	// ConcurrencyStatic keeps the limit at maxConcurrent.
	ConcurrencyStatic = "static"
)

// FieldError is one problem Validate found, at the config key path Path
// (for example "upstreams.accounts.breaker.failureRatio").
type FieldError struct {
	Path    string
	Problem string
}

// Error reads "<path>: <problem>".
func (e *FieldError) Error() string { return e.Path + ": " + e.Problem }

// WithDefaults returns s with every zero field replaced by its documented
// default. Maps are shared with s, not copied.
func (s Settings) WithDefaults() Settings {
	s.Timeout = orDuration(s.Timeout, DefaultTimeout)
	s.ConnectTimeout = orDuration(s.ConnectTimeout, DefaultConnectTimeout)
	s.ResponseHeaderTimeout = orDuration(s.ResponseHeaderTimeout, DefaultResponseHeaderTimeout)
	if s.MaxIdleConnsPerHost == 0 {
		s.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	}
	if s.MaxConcurrent == 0 {
		s.MaxConcurrent = DefaultMaxConcurrent
	}
	if s.MaxAnswerBytes == 0 {
		s.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	cc := &s.Concurrency
	if cc.Mode == "" {
		cc.Mode = ConcurrencyAdaptive
	}
	if cc.MinLimit == 0 {
		cc.MinLimit = min(DefaultMinLimit, s.MaxConcurrent)
	}
	if cc.InitialLimit == 0 {
		cc.InitialLimit = min(DefaultInitialLimit, s.MaxConcurrent)
	}
	if cc.Tolerance == 0 {
		cc.Tolerance = DefaultTolerance
	}
	if cc.Queue == 0 {
		cc.Queue = DefaultQueue
	}
	cc.QueueTimeout = orDuration(cc.QueueTimeout, s.Timeout) // the call's own bound
	if s.Transport == "" {
		s.Transport = TransportFast
	}
	b := &s.Breaker
	if b.ConsecutiveFailures == 0 {
		b.ConsecutiveFailures = DefaultConsecutiveFailures
	}
	if b.FailureRatio == 0 {
		b.FailureRatio = DefaultFailureRatio
	}
	if b.MinRequests == 0 {
		b.MinRequests = DefaultMinRequests
	}
	b.Interval = orDuration(b.Interval, DefaultBreakerInterval)
	b.BucketPeriod = min(orDuration(b.BucketPeriod, DefaultBucketPeriod), b.Interval)
	b.OpenTimeout = orDuration(b.OpenTimeout, DefaultOpenTimeout)
	if b.HalfOpenRequests == 0 {
		b.HalfOpenRequests = DefaultHalfOpenRequests
	}
	r := &s.Retry
	if r.Attempts == 0 {
		r.Attempts = DefaultRetryAttempts
	}
	r.Backoff = orDuration(r.Backoff, DefaultRetryBackoff)
	if r.Budget == 0 {
		r.Budget = DefaultRetryBudget
	}
	return s
}

func orDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Validate reports every problem in s, each a *FieldError whose path starts
// with path (the upstream's key, e.g. "upstreams.accounts"). Zero fields are
// valid: they mean their default. Validate changes nothing.
func (s Settings) Validate(path string) []error {
	var errs []error
	bad := func(key, problem string) {
		errs = append(errs, &FieldError{Path: path + "." + key, Problem: problem})
	}
	if problem := checkURL(s.URL); problem != "" {
		bad("url", problem)
	}
	durations := []struct {
		key string
		d   time.Duration
	}{
		{"timeout", s.Timeout},
		{"connectTimeout", s.ConnectTimeout},
		{"responseHeaderTimeout", s.ResponseHeaderTimeout},
		{"breaker.interval", s.Breaker.Interval},
		{"breaker.bucketPeriod", s.Breaker.BucketPeriod},
		{"breaker.openTimeout", s.Breaker.OpenTimeout},
		{"retry.backoff", s.Retry.Backoff},
		{"concurrency.queueTimeout", s.Concurrency.QueueTimeout},
	}
	for _, f := range durations {
		if f.d < 0 {
			bad(f.key, "must not be negative")
		}
	}
	if s.MaxIdleConnsPerHost < 0 {
		bad("maxIdleConnsPerHost", "must not be negative")
	}
	if s.MaxConcurrent < 0 {
		bad("maxConcurrent", "must not be negative")
	}
	if s.MaxAnswerBytes < 0 {
		bad("maxAnswerBytes", "must not be negative")
	}
	s.Concurrency.validate(s.MaxConcurrent, bad)
	switch s.Transport {
	case "", TransportFast, TransportStd:
	default:
		bad("transport", fmt.Sprintf("must be %s or %s, not %q", TransportFast, TransportStd, s.Transport))
	}
	if !inUnitInterval(s.Breaker.FailureRatio) {
		bad("breaker.failureRatio", "must be between 0 and 1")
	}
	if b := s.Breaker; b.BucketPeriod > 0 && b.BucketPeriod > orDuration(b.Interval, DefaultBreakerInterval) {
		bad("breaker.bucketPeriod", "must not be longer than breaker.interval")
	}
	if s.Retry.Attempts < 0 || s.Retry.Attempts > MaxRetryAttempts {
		bad("retry.attempts", fmt.Sprintf("must be between 0 and %d", MaxRetryAttempts))
	}
	if !inUnitInterval(s.Retry.Budget) {
		bad("retry.budget", "must be between 0 and 1")
	}
	for _, e := range s.Auth.validate() {
		bad("auth."+e.Path, e.Problem)
	}
	errs = append(errs, s.Auth.OAuth.validate(path+".auth.oauth")...)
	s.Cache.validate(bad)
	errs = append(errs, s.Allowance.validate(path+".allowance")...)
	return errs
}

func inUnitInterval(f float64) bool {
	return !math.IsNaN(f) && f >= 0 && f <= 1
}

// checkURL returns what is wrong with a configured upstream URL, or "".
func checkURL(raw string) string {
	const want = `must be "sandbox", "sandbox:<flavour>" or an absolute http(s) URL`
	if _, ok := SandboxFlavour(raw); ok {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return want
	}
	if u.User != nil {
		// Credentials in the URL would end up in logs and error texts.
		return "must not carry credentials; use auth"
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "must not have a query or fragment"
	}
	return ""
}

// validate reports credential problems with paths relative to "auth".
// An empty value most often means a ${VAR} that was not set, so it is named.
func (a AuthSettings) validate() []*FieldError {
	var errs []*FieldError
	if a.Username != "" && a.Password == "" {
		errs = append(errs, &FieldError{Path: "password", Problem: "required when username is set"})
	}
	if a.Password != "" && a.Username == "" {
		errs = append(errs, &FieldError{Path: "username", Problem: "required when password is set"})
	}
	if a.Username != "" && a.BearerToken != "" {
		errs = append(errs, &FieldError{Path: "bearerToken", Problem: "cannot be combined with username/password"})
	}
	if strings.ContainsAny(a.Username, ":\r\n") {
		errs = append(errs, &FieldError{Path: "username", Problem: "must not contain ':' or line breaks"})
	}
	if strings.ContainsAny(a.BearerToken, " \r\n") {
		errs = append(errs, &FieldError{Path: "bearerToken", Problem: "must not contain spaces or line breaks"})
	}
	for _, name := range slices.Sorted(maps.Keys(a.Headers)) {
		value := a.Headers[name]
		switch {
		case !isToken(name):
			errs = append(errs, &FieldError{Path: "headers." + name, Problem: "is not a valid header name"})
		case value == "":
			errs = append(errs, &FieldError{Path: "headers." + name, Problem: "must not be empty"})
		case strings.ContainsAny(value, "\r\n\x00"):
			errs = append(errs, &FieldError{Path: "headers." + name, Problem: "must not contain line breaks or NUL"})
		}
	}
	return errs
}

// isToken reports whether s is an RFC 9110 token (a valid header name).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", r) {
			return false
		}
	}
	return true
}

// validate reports problems with keys relative to the upstream, given its
// maxConcurrent (0: the default).
func (c ConcurrencySettings) validate(maxConcurrent int, bad func(key, problem string)) {
	switch c.Mode {
	case "", ConcurrencyAdaptive, ConcurrencyStatic:
	default:
		bad("concurrency.mode", fmt.Sprintf("must be %s or %s, not %q", ConcurrencyAdaptive, ConcurrencyStatic, c.Mode))
	}
	ceiling := maxConcurrent
	if ceiling == 0 {
		ceiling = DefaultMaxConcurrent
	}
	for _, f := range []struct {
		key string
		n   int
	}{{"concurrency.minLimit", c.MinLimit}, {"concurrency.initialLimit", c.InitialLimit}} {
		switch {
		case f.n < 0:
			bad(f.key, "must not be negative")
		case f.n > ceiling && maxConcurrent >= 0:
			bad(f.key, fmt.Sprintf("must not be above maxConcurrent (%d)", ceiling))
		}
	}
	if c.MinLimit > 0 && c.InitialLimit > 0 && c.InitialLimit < c.MinLimit {
		bad("concurrency.initialLimit", "must not be below concurrency.minLimit")
	}
	if c.Tolerance != 0 && (math.IsNaN(c.Tolerance) || c.Tolerance < 1 || c.Tolerance > 100) {
		bad("concurrency.tolerance", "must be between 1 and 100")
	}
	if c.Queue < -1 {
		bad("concurrency.queue", "must be -1 (no queue) or more")
	}
}
