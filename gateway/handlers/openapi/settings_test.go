package openapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/openapi"
)

// A quota answers 429 like the rate limit: the document declares it for
// every operation when either is on.
func TestQuotasDeclare429(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		auth config.Auth
		want bool
	}{
		{auth: config.Auth{}, want: false},
		{auth: config.Auth{RateLimit: config.RateLimit{RequestsPerSecond: 5}}, want: true},
		{auth: config.Auth{Quotas: config.Quotas{Default: &config.Quota{PerDay: 10}}}, want: true},
		{auth: config.Auth{APIKeys: []config.APIKey{{UserID: "r", Quota: &config.Quota{PerMonth: 10}}}}, want: true},
	} {
		assert.Equal(t, tc.want, openapi.SettingsOf(&config.Config{Auth: tc.auth}).RateLimited)
	}
}
