package cache

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/call"
)

// status is what Cache-Status (RFC 9211) says of one answer.
type status struct {
	// hit: served from the cache; otherwise fwd says why it was forwarded
	// (miss, stale) with the backend's fwdStatus.
	hit       bool
	fwd       string
	fwdStatus int
	stored    bool
	collapsed bool
	detail    string
	// warn adds Warning: 111 (served stale because revalidation failed).
	warn bool
}

// cacheName is this cache's name in Cache-Status.
const cacheName = "restgate"

// value is the Cache-Status member of s, with the entry's remaining
// freshness as ttl (negative once stale).
func (s status) value(ttl time.Duration) string {
	b := make([]byte, 0, 80)
	b = append(b, cacheName...)
	if s.hit {
		b = append(b, "; hit"...)
	} else {
		b = append(b, "; fwd="...)
		b = append(b, s.fwd...)
		if s.fwdStatus != 0 {
			b = append(b, "; fwd-status="...)
			b = strconv.AppendInt(b, int64(s.fwdStatus), 10)
		}
		if s.stored {
			b = append(b, "; stored"...)
		}
		if s.collapsed {
			b = append(b, "; collapsed"...)
		}
	}
	if s.hit || s.stored {
		b = append(b, "; ttl="...)
		b = strconv.AppendInt(b, int64(ttl.Round(time.Second)/time.Second), 10)
	}
	if s.detail != "" {
		b = append(b, `; detail="`...)
		b = append(b, s.detail...)
		b = append(b, '"')
	}
	return string(b)
}

// answer is e as r's answer: the rendered envelope with Cache-Status, Age,
// the gateway's ETag, Cache-Control and Vary, or 304 when r's
// If-None-Match names the ETag. A kept 404 is its error, with
// Cache-Status, Age and Vary.
func (rd *reader) answer(r *http.Request, e *Entry, now time.Time, s status) (call.Result, error) {
	pol := rd.rp.Policy
	h := make(http.Header, 7)
	h["Cache-Status"] = []string{s.value(e.Fresh.Sub(now))}
	h["Age"] = []string{strconv.FormatInt(int64(max(now.Sub(e.Stored), 0)/time.Second), 10)}
	if len(pol.Vary) > 0 {
		h["Vary"] = []string{strings.Join(pol.Vary, ", ")}
	}
	if e.Refusal != nil {
		return call.Result{}, &call.HeadedError{Err: e.Refusal, Header: h}
	}
	h["Etag"] = []string{e.ETag}
	switch {
	case !s.hit && !s.stored:
		h["Cache-Control"] = []string{"no-store"}
	case pol.ClientMaxAge > 0 && now.Before(e.Fresh):
		left := min(pol.ClientMaxAge, e.Fresh.Sub(now))
		h["Cache-Control"] = []string{"private, max-age=" + strconv.FormatInt(int64(left/time.Second), 10)}
	default:
		h["Cache-Control"] = []string{"private, no-cache"}
	}
	if s.warn {
		h["Warning"] = []string{`111 - "Revalidation Failed"`}
	}
	res := call.Result{Rendered: &e.Answer, Header: h}
	if e.Answer.Status == http.StatusOK && matches(r.Header.Values("If-None-Match"), e.ETag) {
		res.Status = http.StatusNotModified
	}
	return res, nil
}

// matches reports whether an If-None-Match list names etag, compared
// weakly (RFC 9110 13.1.2), or is "*".
func matches(lists []string, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, list := range lists {
		for tag := range strings.SplitSeq(list, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}
