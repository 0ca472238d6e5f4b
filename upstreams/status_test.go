package upstreams

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// salesforceError answers the Salesforce family's error array, as the REST
// and Connect APIs document it.
func salesforceError(status int, code, message string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json;charset=UTF-8")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`[{"message":"` + message + `","errorCode":"` + code + `"}]`))
	}
}

func isSalesforceRecordRefusal(code, _ string) bool { return code == "INSUFFICIENT_ACCESS_OR_READONLY" }

func TestClassifyStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc       string
		handler    http.HandlerFunc
		refusal    BusinessRefusal
		path       string
		wantKind   Kind
		wantStatus int // the gateway's, from StatusFor
		wantRetry  time.Duration
		wantInMsg  string
		wantOutcom string
	}{
		{desc: "expired session is the gateway's credential", handler: salesforceError(401, "INVALID_SESSION_ID", "Session expired or invalid"),
			wantKind: KindCredentials, wantStatus: 502, wantInMsg: "Session expired", wantOutcom: "credentials"},
		{desc: "403 without a hook is a credential failure", handler: salesforceError(403, "INSUFFICIENT_ACCESS_OR_READONLY", "no access"),
			wantKind: KindCredentials, wantStatus: 502, wantOutcom: "credentials"},
		{desc: "403 the hook does not know", handler: salesforceError(403, "API_DISABLED_FOR_ORG", "API is not enabled"),
			refusal: isSalesforceRecordRefusal, wantKind: KindCredentials, wantStatus: 502, wantOutcom: "credentials"},
		{desc: "REQUEST_LIMIT_EXCEEDED without Retry-After", handler: salesforceError(403, CodeRequestLimitExceeded, "TotalRequests Limit exceeded."),
			refusal: isSalesforceRecordRefusal, wantKind: KindLimited, wantStatus: 503, wantRetry: 30 * time.Second, wantOutcom: "limited"},
		{desc: "429 with the backend's Retry-After", handler: salesforceError(429, "", "slow down", "Retry-After", "7"),
			wantKind: KindLimited, wantStatus: 503, wantRetry: 7 * time.Second, wantOutcom: "limited"},
		{desc: "a Retry-After of a day is capped", handler: salesforceError(429, "", "slow down", "Retry-After", "86400"),
			wantKind: KindLimited, wantStatus: 503, wantRetry: time.Hour, wantOutcom: "limited"},
		{desc: "503 with an HTTP date", handler: func(w http.ResponseWriter, r *http.Request) {
			// The date is made when the call arrives: parallel tests may
			// start this one seconds after the table was built.
			salesforceError(503, "", "maintenance", "Retry-After", time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))(w, r)
		},
			wantKind: KindLimited, wantStatus: 503, wantRetry: 89 * time.Second, wantOutcom: "limited"},
		{desc: "410 names the retired version", handler: salesforceError(410, "", "Gone"), path: "/services/data/v35.0/query",
			wantKind: KindRetired, wantStatus: 502, wantInMsg: "API version v35.0 is retired", wantOutcom: "retired"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.handler)
			s := testSettings(f.srv.URL)
			s.Breaker.OpenTimeout = 30 * time.Second
			rec := &recorder{}
			c, err := NewClient("test", s, rec, WithBusinessRefusal(tt.refusal))
			require.NoError(t, err)
			t.Cleanup(c.Close)
			_, _, err = fetch(context.Background(), c, http.MethodGet, f.srv.URL+tt.path, "")
			ue := AsError(err)
			require.NotNil(t, ue, "%v", err)
			assert.Equal(t, tt.wantKind, ue.Kind)
			assert.Equal(t, tt.wantStatus, StatusFor(err))
			if tt.wantRetry > 0 {
				assert.InDelta(t, float64(tt.wantRetry), float64(ue.RetryAfter), float64(2*time.Second))
			}
			assert.Contains(t, ue.Message, tt.wantInMsg)
			outcomes, _ := rec.seen()
			assert.Equal(t, []string{tt.wantOutcom}, outcomes)
			assert.EqualValues(t, 1, f.hits.Load(), "not retried")
		})
	}
}

func TestBusinessRefusalReachesTheAdapter(t *testing.T) {
	t.Parallel()
	body := `[{"message":"insufficient access rights on object id","errorCode":"INSUFFICIENT_ACCESS_OR_READONLY"}]`
	f := newFake(t, answer(http.StatusForbidden, body))
	s := testSettings(f.srv.URL)
	s.Breaker.ConsecutiveFailures = 1
	rec := &recorder{}
	c, err := NewClient("test", s, rec, WithBusinessRefusal(isSalesforceRecordRefusal))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	for range 3 {
		status, got, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
		require.NoError(t, err)
		assert.Equal(t, http.StatusForbidden, status)
		assert.Equal(t, body, got, "the adapter reads the whole answer")
	}
	assert.Equal(t, "closed", c.BreakerState(), "a business refusal is not counted")
}

func TestCredentialFailuresOpenTheBreaker(t *testing.T) {
	t.Parallel()
	f := newFake(t, salesforceError(401, "INVALID_SESSION_ID", "Session expired or invalid"))
	s := testSettings(f.srv.URL)
	s.Breaker = BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Hour}
	c, _ := newTestClient(t, s)
	for range 2 {
		_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
		assert.Equal(t, KindCredentials, kindOf(err))
	}
	assert.Equal(t, "open", c.BreakerState())
	_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
	assert.Equal(t, KindOpen, kindOf(err))
	assert.EqualValues(t, 2, f.hits.Load())
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", 30 * time.Second}, {"junk", 30 * time.Second}, {"0", time.Second}, {"12", 12 * time.Second},
		{now.Add(time.Minute).Format(http.TimeFormat), time.Minute}, {now.Add(-time.Minute).Format(http.TimeFormat), time.Second},
		{strings.Repeat("9", 30), 30 * time.Second},
	} {
		assert.Equal(t, tt.want, retryAfter(tt.in, now, 30*time.Second), tt.in)
	}
}
