package middleware

import (
	"net/http"
	"net/textproto"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRateLimitFields(t *testing.T) {
	t.Parallel()
	assert.Equal(t, textproto.CanonicalMIMEHeaderKey(PolicyField), policyKey)
	assert.Equal(t, textproto.CanonicalMIMEHeaderKey(LimitField), limitKey)
	h := http.Header{}
	policy := appendPolicyItem(nil, "rate", 20, 2)
	addFields(h, policy, appendLimitItem(nil, "rate", 19, 1))
	addFields(h, appendPolicyItem(nil, `a "quoted" \\ name`+"\n", 1000, 0), appendLimitItem(nil, "day", -3, 3600))
	assert.Equal(t, []string{`"rate";q=20;w=2`, `"a \"quoted\" \\\\ name";q=1000;w=1`}, h.Values(PolicyField),
		"a String escapes quotes and backslashes and leaves out what it cannot carry; a window is at least a second")
	assert.Equal(t, []string{`"rate";r=19;t=1`, `"day";r=0;t=3600`}, h.Values(LimitField), "nothing remains below 0")
	assert.Equal(t, `"rate";q=20;w=2`, string(policy), "the policy given is not written to")
}
