package middleware

import (
	"math"
	"strconv"
	"time"
)

// The answer fields that tell a limited caller its quota policies and what
// is left of each, as draft-ietf-httpapi-ratelimit-headers-11 defines them:
// lists of Structured Field items (RFC 9651), a policy item naming its
// quota q and window w in seconds, a limit item its remaining quota r and
// the seconds t within which no more than r can be used:
//
//	RateLimit-Policy: "day";q=1000;w=86400
//	RateLimit: "day";r=998;t=3600
//
// The rate limit and the quotas each add their items as fields of their
// own; a list split over several fields is the same list.
const (
	PolicyField = "RateLimit-Policy"
	LimitField  = "RateLimit"
)

// The fields' keys in an http.Header, canonical (as Header.Add would make
// them, without making them again on every answer).
const (
	policyKey = "Ratelimit-Policy"
	limitKey  = "Ratelimit"
)

// addFields adds the policy and limit items to h, both in one string.
// Neither slice is written to.
func addFields(h map[string][]string, policy, limit []byte) {
	var buf [512]byte
	both := string(append(append(buf[:0], policy...), limit...))
	h[policyKey] = append(h[policyKey], both[:len(policy)])
	h[limitKey] = append(h[limitKey], both[len(policy):])
}

// appendPolicyItem appends the policy item `"name";q=q;w=w`.
func appendPolicyItem(dst []byte, name string, q, w int64) []byte {
	dst = appendSFString(dst, name)
	dst = append(dst, ";q="...)
	dst = strconv.AppendInt(dst, max(q, 0), 10)
	dst = append(dst, ";w="...)
	return strconv.AppendInt(dst, max(w, 1), 10)
}

// appendLimitItem appends the service limit item `"name";r=r;t=t`.
func appendLimitItem(dst []byte, name string, r, t int64) []byte {
	dst = appendSFString(dst, name)
	dst = append(dst, ";r="...)
	dst = strconv.AppendInt(dst, max(r, 0), 10)
	dst = append(dst, ";t="...)
	return strconv.AppendInt(dst, max(t, 0), 10)
}

// appendSFString appends s as a Structured Field String: printable ASCII,
// with " and \ escaped; any other byte is left out (names come from the
// configuration, which a String cannot always carry).
func appendSFString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c >= 0x20 && c < 0x7f:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int64 {
	return int64(math.Ceil(d.Seconds()))
}
