package upstreams

import (
	"fmt"
	"time"
)

// Settings configure one upstream. They are decoded from config.yaml
// (upstreams.<name>) and compared on reload: a client whose Settings did not
// change is kept, with its breaker and connections. The zero value of every
// field means its documented default.
type Settings struct {
	// URL is the backend's base URL, or "sandbox" for the embedded reference
	// server of its contract.
	URL string `yaml:"url"`
	// Timeout bounds one whole call, retries included. Default 10s.
	Timeout time.Duration `yaml:"timeout"`
	// ConnectTimeout bounds the TCP (and TLS) connect. Default 2s.
	ConnectTimeout time.Duration `yaml:"connectTimeout"`
	// ResponseHeaderTimeout bounds the wait for response headers. Default 8s.
	ResponseHeaderTimeout time.Duration `yaml:"responseHeaderTimeout"`
	// MaxIdleConnsPerHost sizes the keep-alive pool. Default 64.
	MaxIdleConnsPerHost int `yaml:"maxIdleConnsPerHost"`
	// Transport is the HTTP/1.1 engine of a plain http:// backend: fast
	// (upstreams/h1client, each exchange on the caller's goroutine) or std
	// (net/http's Transport). https backends, proxies and streamed uploads
	// always go through net/http's. Default fast. A change reloads (the
	// upstream's client is rebuilt, with a new breaker and pool). See
	// docs/internals/http-engines.md.
	Transport string `yaml:"transport"`
	// MaxConcurrent is the most calls in flight: the ceiling of the
	// adaptive limit, or, with concurrency.mode static, the limit itself.
	// Calls past the limit wait in its queue (see Concurrency). Default
	// 1024. A change reloads (a new client, whose limit starts again).
	MaxConcurrent int `yaml:"maxConcurrent"`
	// Concurrency configures the limit of calls in flight, which follows
	// the backend's latency. See docs/operations/tuning.md.
	Concurrency ConcurrencySettings `yaml:"concurrency"`
	// MaxAnswerBytes caps the body of any answer of this upstream read for
	// a call that has no cap of its route (routes[].maxAnswerBytes): a
	// larger answer is refused as soon as its Content-Length or the bytes
	// read pass it (CALLOUT_FAILED 502), so no answer costs more memory
	// than this. Default 8 MiB. A change reloads.
	MaxAnswerBytes int64 `yaml:"maxAnswerBytes"`
	// Breaker configures the circuit breaker.
	Breaker BreakerSettings `yaml:"breaker"`
	// Retry configures retries of idempotent calls.
	Retry RetrySettings `yaml:"retry"`
	// Auth holds the credentials sent to this backend. Values come from the
	// environment through ${VAR} expansion and are never logged.
	Auth AuthSettings `yaml:"auth"`
	// Allowance protects the allowance of API calls of the org behind
	// this upstream (a Salesforce org): a reserve for essential calls and
	// an idle poll of its usage. A change reloads: the upstream's client is
	// rebuilt (its breaker starts again), the usage it knows is kept.
	Allowance AllowanceSettings `yaml:"allowance"`
	// Options are adapter-specific settings (apiVersion, header names,
	// communityId, a workflow engine's engineVersion ...), validated by the
	// adapter.
	Options map[string]string `yaml:"options"`
	// Cache gives the defaults of the response cache of this upstream's
	// routes and says what the backend's caching headers mean
	// (docs/guides/caching.md).
	Cache CacheSettings `yaml:"cache"`
}

// BreakerSettings configure a sony/gobreaker v2 breaker. It trips on either
// of two rules: ConsecutiveFailures failures in a row (a dead backend: every
// call fails), or a FailureRatio of failures among at least MinRequests
// calls finished in the last Interval (a backend that mostly fails). The
// defaults leave a backend that fails one call in ten closed: ten failures
// in a row then happen about once in ten billion calls, and a tenth is far
// from half. Interval is a rolling window of BucketPeriod steps, so the
// counts age out gradually instead of all at once. A change of any of these
// settings reloads (the upstream's client, its breaker included, is rebuilt).
// docs/operations/tuning.md says what each trips on.
type BreakerSettings struct {
	// ConsecutiveFailures in a row trip the breaker: with retry.attempts 2,
	// a dead backend opens it within five idempotent requests (ten
	// attempts), or ten that are not retried. Default 10.
	ConsecutiveFailures uint32 `yaml:"consecutiveFailures"`
	// FailureRatio of failures in (0,1] among the calls finished in the
	// window trips the breaker, once MinRequests were finished. Default 0.5.
	FailureRatio float64 `yaml:"failureRatio"`
	// MinRequests finished in the window before the ratio rule applies.
	// Default 20.
	MinRequests uint32 `yaml:"minRequests"`
	// Interval is the closed-state window the counts cover. Default 60s.
	Interval time.Duration `yaml:"interval"`
	// BucketPeriod is the step by which the window rolls: every
	// BucketPeriod the oldest step's counts are dropped. At most Interval;
	// Interval is rounded up to a multiple of it. Default 10s.
	BucketPeriod time.Duration `yaml:"bucketPeriod"`
	// OpenTimeout is how long the breaker stays open. Default 30s.
	OpenTimeout time.Duration `yaml:"openTimeout"`
	// HalfOpenRequests is how many probes pass while half-open. Default 1.
	HalfOpenRequests uint32 `yaml:"halfOpenRequests"`
}

// ConcurrencySettings configure the limit of calls in flight to one
// upstream. In adaptive mode the limit starts at InitialLimit and moves
// between MinLimit and maxConcurrent with the backend's latency: it grows
// while the latency of each window of calls stays within Tolerance times
// its long-term average, and falls when it does not or when calls time
// out. Calls past the limit wait, first come first served, in a queue of
// Queue calls for at most QueueTimeout; a call that finds the queue full or
// waits it out is CALLOUT_FAILED 503 with Retry-After, nothing sent. The
// limit in force is the gateway_upstream_concurrency_limit metric.
type ConcurrencySettings struct {
	// Mode is adaptive (the default) or static (the limit is
	// maxConcurrent).
	Mode string `yaml:"mode"`
	// MinLimit is the least the adaptive limit falls to. Default 8.
	MinLimit int `yaml:"minLimit"`
	// InitialLimit is where the adaptive limit starts. Default 64.
	InitialLimit int `yaml:"initialLimit"`
	// Tolerance is how many times its long-term average a window's mean
	// latency may reach before the limit falls; at least 1. Default 2.
	Tolerance float64 `yaml:"tolerance"`
	// Queue is how many calls may wait for a slot; -1 means none (a call
	// past the limit fails at once, as a plain bulkhead). Default 4096.
	Queue int `yaml:"queue"`
	// QueueTimeout is the longest a call waits for a slot (less when the
	// call's deadline, by its route's timeout or its request's, is nearer:
	// the wait is part of the call). Default the upstream's timeout: a
	// caller waits no longer than the call itself could take, and a machine
	// short of CPU, which slows every answer, does not turn the wait into
	// refusals.
	QueueTimeout time.Duration `yaml:"queueTimeout"`
}

// RetrySettings configure retries of idempotent calls (GET, HEAD, OPTIONS,
// PUT, DELETE, and any request with an Idempotency-Key header) after a
// transport failure, timeout of one attempt, or 502/503/504.
type RetrySettings struct {
	// Attempts is the total number of tries, the first included. Default 2;
	// 1 disables retries.
	Attempts int `yaml:"attempts"`
	// Backoff is the base delay, doubled per retry, with full jitter.
	// Default 25ms.
	Backoff time.Duration `yaml:"backoff"`
	// Budget is the retries allowed per call, kept as a token bucket: every
	// call adds Budget of a token, up to 10 tokens, and every retry spends
	// one (0.1 = one retry per ten calls once a burst of ten is spent).
	// The bucket starts full. Default 0.1.
	Budget float64 `yaml:"budget"`
}

// AuthSettings are credentials for one backend.
type AuthSettings struct {
	// Username and Password: HTTP Basic (the workflow engine).
	Username string `yaml:"username"`
	// Password of HTTP Basic, with Username.
	Password string `yaml:"password"`
	// BearerToken: Authorization: Bearer (the data API and batch upload).
	BearerToken string `yaml:"bearerToken"`
	// Headers are extra credential headers, name -> value (the data API's
	// gateway key, application and provider names).
	Headers map[string]string `yaml:"headers"`
	// OAuth, when its flow is set, obtains the bearer token from a token
	// endpoint and renews it (BearerToken is then not sent). Upstreams with
	// equal OAuth settings share one token. Default: no flow. A change
	// rebuilds the upstream's client on reload (a new token is fetched).
	OAuth OAuthSettings `yaml:"oauth"`
}

// OAuthSettings configure how an upstream obtains its access token, through
// golang.org/x/oauth2. The token answer's instance_url, when present,
// replaces the scheme and host of the upstream's url for every call.
type OAuthSettings struct {
	// Flow is jwt-bearer (ClientID, Username, PrivateKeyFile),
	// client-credentials (ClientID, ClientSecret) or refresh-token
	// (ClientID, RefreshToken, and ClientSecret when the client has one).
	// Empty: no OAuth, the static BearerToken is sent.
	Flow string `yaml:"flow"`
	// TokenURL is the token endpoint, such as
	// https://login.salesforce.com/services/oauth2/token.
	TokenURL string `yaml:"tokenURL"`
	// ClientID is the connected app's consumer key (the JWT's iss).
	ClientID string `yaml:"clientID"`
	// ClientSecret is the connected app's consumer secret.
	ClientSecret string `yaml:"clientSecret"`
	// Username is the user the JWT bearer flow acts as (the JWT's sub).
	Username string `yaml:"username"`
	// PrivateKeyFile is a PEM file holding the RSA key that signs the JWT
	// (read at start).
	PrivateKeyFile string `yaml:"privateKeyFile"`
	// Audience is the JWT's aud. Default: the scheme and host of TokenURL
	// (https://login.salesforce.com, or https://test.salesforce.com for a
	// Salesforce sandbox org).
	Audience string `yaml:"audience"`
	// RefreshToken is the refresh token of the refresh-token flow.
	RefreshToken string `yaml:"refreshToken"`
}

// validate reports the problems of o with paths under path.
func (o OAuthSettings) validate(path string) []error {
	var errs []error
	need := func(key, value string) {
		if value == "" {
			errs = append(errs, &FieldError{Path: path + "." + key, Problem: "required for flow " + o.Flow})
		}
	}
	switch o.Flow {
	case "":
		return nil
	case FlowJWTBearer:
		need("clientID", o.ClientID)
		need("username", o.Username)
		need("privateKeyFile", o.PrivateKeyFile)
	case FlowClientCredentials:
		need("clientID", o.ClientID)
		need("clientSecret", o.ClientSecret)
	case FlowRefreshToken:
		need("clientID", o.ClientID)
		need("refreshToken", o.RefreshToken)
	default:
		return []error{&FieldError{Path: path + ".flow", Problem: fmt.Sprintf("must be %s, %s or %s, not %q",
			FlowJWTBearer, FlowClientCredentials, FlowRefreshToken, o.Flow)}}
	}
	if problem := checkURL(o.TokenURL); problem != "" || o.TokenURL == SandboxURL {
		errs = append(errs, &FieldError{Path: path + ".tokenURL", Problem: "must be an absolute http(s) URL"})
	}
	return errs
}
