package upstreams

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// BusinessRefusal reports whether a backend's 403 refuses the request for a
// reason of the business (the record, the task, the subject the caller
// chose), rather than the gateway's own credentials or permissions. code and
// message are the backend's, as ReadStatusError extracts them. A nil
// BusinessRefusal means no 403 is a business refusal: every 403 is then a
// credential failure of the gateway.
type BusinessRefusal func(code, message string) bool

// Error codes that classify an answer whatever its status.
const (
	// CodeRequestLimitExceeded is the Salesforce family's rate limit, sent
	// with 403 (API requests per day, concurrent long requests).
	CodeRequestLimitExceeded = "REQUEST_LIMIT_EXCEEDED"
	// CodeInvalidSession is the Salesforce family's 401 for an access token
	// that expired or was revoked.
	CodeInvalidSession = "INVALID_SESSION_ID"
)

// maxRetryAfter bounds a backend's Retry-After passed on to clients: a
// backend asking for a day means "not today", which an hour says as well
// without making a client wait past the problem's end.
const maxRetryAfter = time.Hour

// classifiedStatus reports whether the shared client classifies status
// itself instead of handing the answer to the adapter: the statuses that
// say something about the gateway or the backend, not about the request.
func classifiedStatus(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusGone, http.StatusTooManyRequests,
		http.StatusServiceUnavailable:
		return true
	}
	return false
}

// ClassifyStatus is the one place a backend answer's status becomes a
// failure kind, for every adapter:
//
//   - 401, and a 403 that refusal does not call a business refusal:
//     KindCredentials, the gateway's own credentials or permissions failed
//     (502 to the client, counted by the breaker);
//   - 429, 503, and REQUEST_LIMIT_EXCEEDED with any status: KindLimited,
//     with the backend's Retry-After, or fallback when it sent none
//     (503 with Retry-After, counted);
//   - 410: KindRetired, the resource or API version is retired (502,
//     counted; the message names the version found in path);
//   - other 4xx, a business 403 included: KindRejected with the status
//     (the route's code with that status, not counted);
//   - other 5xx: KindFailed (502, counted).
//
// header is the answer's, for Retry-After; path the request's, for the
// message of a 410.
func ClassifyStatus(upstream string, status int, header http.Header, path, code, message string,
	refusal BusinessRefusal, fallback time.Duration) *Error {
	e := NewStatusError(upstream, status, code, message)
	switch {
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable || code == CodeRequestLimitExceeded:
		e.Kind = KindLimited
		e.RetryAfter = retryAfter(header.Get("Retry-After"), time.Now(), fallback)
	case status == http.StatusUnauthorized:
		e.Kind = KindCredentials
	case status == http.StatusForbidden && (refusal == nil || !refusal(code, message)):
		e.Kind = KindCredentials
	case status == http.StatusGone:
		e.Kind = KindRetired
		if v := apiVersionIn(path); v != "" {
			e.Message = "API version " + v + " is retired by the backend (410 Gone): configure a current apiVersion; " + e.Message
		} else {
			e.Message = "the resource " + path + " is retired by the backend (410 Gone); " + e.Message
		}
	}
	return e
}

// versionSegment finds an API version segment such as /v35.0/ or /v2/.
var versionSegment = regexp.MustCompile(`/(v[0-9]+(?:\.[0-9]+)?)(?:/|$)`)

// apiVersionIn is the first API version segment of path, or "".
func apiVersionIn(path string) string {
	if m := versionSegment.FindStringSubmatch(path); m != nil {
		return m[1]
	}
	return ""
}

// retryAfter reads a Retry-After value (delay seconds or an HTTP date),
// bounded to [1s, maxRetryAfter]; fallback (at least a second) when it is
// absent or unreadable.
func retryAfter(v string, now time.Time, fallback time.Duration) time.Duration {
	d, ok := givenRetryAfter(v, now)
	if !ok {
		d = max(fallback, time.Second)
	}
	return min(d, maxRetryAfter)
}

// givenRetryAfter reads a Retry-After value (delay seconds or an HTTP
// date), bounded to [1s, maxRetryAfter]; false when it is absent or
// unreadable.
func givenRetryAfter(v string, now time.Time) (time.Duration, bool) {
	var d time.Duration
	v = strings.TrimSpace(v)
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		d = time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return 0, false
	}
	return min(max(d, time.Second), maxRetryAfter), true
}

// classifyAnswer reads a classified status's answer (bounded) and returns
// its *Error, or nil when it is a business refusal that the adapter reads
// itself: the response's body is then put back whole.
func (c *Client) classifyAnswer(req *http.Request, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorAnswer))
	code, msg := errorOf(body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	e := ClassifyStatus(c.name, resp.StatusCode, resp.Header, req.URL.Path, code, msg, c.refusal, c.s.Breaker.OpenTimeout)
	if e.Kind == KindLimited && c.ownFlowControl {
		e.RetryAfter, _ = givenRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	if e.Kind == KindLimited && e.Code == CodeRequestLimitExceeded && c.allowance != nil {
		// The org's allowance is spent: the guard trips for every caller
		// and says when it expects the window to have freed some.
		e.RetryAfter = c.allowance.Exceeded(req.Context())
	}
	if e.Kind == KindRejected {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		return nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	_ = resp.Body.Close()
	return e
}
