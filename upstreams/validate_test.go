package upstreams

import (
	"math"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithDefaults(t *testing.T) {
	t.Parallel()
	got := Settings{URL: SandboxURL}.WithDefaults()
	want := Settings{
		URL:                   SandboxURL,
		Timeout:               10 * time.Second,
		ConnectTimeout:        2 * time.Second,
		ResponseHeaderTimeout: 8 * time.Second,
		MaxIdleConnsPerHost:   64,
		MaxConcurrent:         1024,
		MaxAnswerBytes:        8 << 20,
		Concurrency: ConcurrencySettings{Mode: ConcurrencyAdaptive, MinLimit: 8, InitialLimit: 64, Tolerance: 2,
			Queue: 4096, QueueTimeout: 10 * time.Second},
		Transport: TransportFast,
		Breaker: BreakerSettings{
			ConsecutiveFailures: 10, FailureRatio: 0.5, MinRequests: 20, Interval: time.Minute,
			BucketPeriod: 10 * time.Second, OpenTimeout: 30 * time.Second, HalfOpenRequests: 1,
		},
		Retry: RetrySettings{Attempts: 2, Backoff: 25 * time.Millisecond, Budget: 0.1},
	}
	assert.Equal(t, want, got)

	set := Settings{URL: "http://x", Timeout: time.Second, Retry: RetrySettings{Attempts: 1}}
	assert.Equal(t, time.Second, set.WithDefaults().Timeout, "set fields are kept")
	assert.Equal(t, 1, set.WithDefaults().Retry.Attempts)
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		s    Settings
		want []string
	}{
		{desc: "sandbox with defaults", s: Settings{URL: "sandbox"}},
		{desc: "a flavour of the sandbox", s: Settings{URL: "sandbox:original"}},
		{desc: "a sandbox flavour without a name", s: Settings{URL: "sandbox:"},
			want: []string{`upstreams.a.url: must be "sandbox", "sandbox:<flavour>" or an absolute http(s) URL`}},
		{desc: "a sandbox flavour in capitals", s: Settings{URL: "sandbox:Original"},
			want: []string{`upstreams.a.url: must be "sandbox", "sandbox:<flavour>" or an absolute http(s) URL`}},
		{desc: "https with everything set", s: Settings{
			URL: "https://crm.example.com/api", Timeout: time.Second,
			Breaker: BreakerSettings{FailureRatio: 1}, Retry: RetrySettings{Attempts: 10, Budget: 1},
			Auth: AuthSettings{Username: "u", Password: "p", Headers: map[string]string{"X-Key": "k"}},
		}},
		{desc: "missing url", s: Settings{}, want: []string{`upstreams.a.url: must be "sandbox", "sandbox:<flavour>" or an absolute http(s) URL`}},
		{desc: "relative url", s: Settings{URL: "/api"}, want: []string{`upstreams.a.url: must be "sandbox", "sandbox:<flavour>" or an absolute http(s) URL`}},
		{desc: "other scheme", s: Settings{URL: "ftp://host"}, want: []string{`upstreams.a.url: must be "sandbox", "sandbox:<flavour>" or an absolute http(s) URL`}},
		{desc: "credentials in url", s: Settings{URL: "http://u:p@host"}, want: []string{"upstreams.a.url: must not carry credentials; use auth"}},
		{desc: "query in url", s: Settings{URL: "http://host/?a=1"}, want: []string{"upstreams.a.url: must not have a query or fragment"}},
		{desc: "every problem at once", s: Settings{
			URL: "sandbox", Timeout: -1, ConnectTimeout: -1, ResponseHeaderTimeout: -1,
			MaxIdleConnsPerHost: -1, MaxConcurrent: -1, MaxAnswerBytes: -1,
			Concurrency: ConcurrencySettings{Mode: "fixed", MinLimit: -1, InitialLimit: 2000, Tolerance: 0.5,
				Queue: -2, QueueTimeout: -1},
			Breaker: BreakerSettings{FailureRatio: 1.5, Interval: -1, OpenTimeout: -1},
			Retry:   RetrySettings{Attempts: 11, Backoff: -1, Budget: -0.1},
		}, want: []string{
			"upstreams.a.timeout: must not be negative",
			"upstreams.a.connectTimeout: must not be negative",
			"upstreams.a.responseHeaderTimeout: must not be negative",
			"upstreams.a.breaker.interval: must not be negative",
			"upstreams.a.breaker.openTimeout: must not be negative",
			"upstreams.a.retry.backoff: must not be negative",
			"upstreams.a.concurrency.queueTimeout: must not be negative",
			"upstreams.a.maxIdleConnsPerHost: must not be negative",
			"upstreams.a.maxConcurrent: must not be negative",
			"upstreams.a.maxAnswerBytes: must not be negative",
			`upstreams.a.concurrency.mode: must be adaptive or static, not "fixed"`,
			"upstreams.a.concurrency.minLimit: must not be negative",
			"upstreams.a.concurrency.tolerance: must be between 1 and 100",
			"upstreams.a.concurrency.queue: must be -1 (no queue) or more",
			"upstreams.a.breaker.failureRatio: must be between 0 and 1",
			"upstreams.a.retry.attempts: must be between 0 and 10",
			"upstreams.a.retry.budget: must be between 0 and 1",
		}},
		{desc: "a rolling step longer than the window", s: Settings{URL: "sandbox",
			Breaker: BreakerSettings{Interval: 10 * time.Second, BucketPeriod: time.Minute}},
			want: []string{"upstreams.a.breaker.bucketPeriod: must not be longer than breaker.interval"}},
		{desc: "a negative rolling step", s: Settings{URL: "sandbox", Breaker: BreakerSettings{BucketPeriod: -1}},
			want: []string{"upstreams.a.breaker.bucketPeriod: must not be negative"}},
		{desc: "NaN ratio", s: Settings{URL: "sandbox", Breaker: BreakerSettings{FailureRatio: math.NaN()}},
			want: []string{"upstreams.a.breaker.failureRatio: must be between 0 and 1"}},
		{desc: "auth problems", s: Settings{URL: "sandbox", Auth: AuthSettings{
			Username: "a:b", BearerToken: "t t",
			Headers: map[string]string{"Bad Name": "v", "X-Empty": "", "X-Split": "a\r\nb"},
		}}, want: []string{
			"upstreams.a.auth.password: required when username is set",
			"upstreams.a.auth.bearerToken: cannot be combined with username/password",
			"upstreams.a.auth.username: must not contain ':' or line breaks",
			"upstreams.a.auth.bearerToken: must not contain spaces or line breaks",
			"upstreams.a.auth.headers.Bad Name: is not a valid header name",
			"upstreams.a.auth.headers.X-Empty: must not be empty",
			"upstreams.a.auth.headers.X-Split: must not contain line breaks or NUL",
		}},
		{desc: "std transport", s: Settings{URL: "http://host", Transport: TransportStd}},
		{desc: "unknown transport", s: Settings{URL: "http://host", Transport: "h2"},
			want: []string{`upstreams.a.transport: must be fast or std, not "h2"`}},
		{desc: "password without username", s: Settings{URL: "sandbox", Auth: AuthSettings{Password: "p"}},
			want: []string{"upstreams.a.auth.username: required when password is set"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			errs := tt.s.Validate("upstreams.a")
			got := make([]string, 0, len(errs))
			for _, err := range errs {
				var fe *FieldError
				require.ErrorAs(t, err, &fe)
				got = append(got, err.Error())
			}
			assert.Equal(t, append([]string{}, tt.want...), got)
		})
	}
}

func FuzzCheckURL(f *testing.F) {
	for _, seed := range []string{"sandbox", "http://host", "https://h:8443/base", "ftp://x", "", "http://u:p@h", "http://[::1", "//host", "http:///path"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if checkURL(raw) != "" || raw == SandboxURL {
			return
		}
		u, err := url.Parse(raw)
		require.NoError(t, err)
		assert.Contains(t, []string{"http", "https"}, u.Scheme)
		assert.NotEmpty(t, u.Host)
		assert.Nil(t, u.User)
	})
}

func FuzzIsToken(f *testing.F) {
	for _, seed := range []string{"X-Key", "Bad Name", "", "a\r\nb", "ü"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !isToken(name) {
			return
		}
		for _, r := range name {
			assert.Less(t, r, rune(0x7f))
			assert.Greater(t, r, rune(' '))
			assert.NotContains(t, `"(),/:;<=>?@[\]{}`, string(r))
		}
	})
}

func TestSandboxFlavour(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]struct {
		flavour string
		ok      bool
	}{
		"sandbox": {"", true}, "sandbox:original": {"original", true}, "sandbox:v2": {"v2", true},
		"sandbox:": {"", false}, "sandbox:Original": {"", false}, "sandbox:a/b": {"", false},
		"sandboxes": {"", false}, "http://sandbox": {"", false}, "": {"", false},
	} {
		flavour, ok := SandboxFlavour(url)
		assert.Equal(t, want.flavour, flavour, url)
		assert.Equal(t, want.ok, ok, url)
	}
}
