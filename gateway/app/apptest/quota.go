package apptest

import "strings"

// QuotaConfig is AccountsConfig with every request counted in a quota
// (a default of a quadrillion requests a day: counted, never refused) and
// the accounts upstream guarded by an org allowance (a reserve of 10%, the
// usage read from each answer's Sforce-Limit-Info): what the load harness
// measures the cost of quotas and the allowance with (target
// gateway-quota), against AccountsConfig itself.
func QuotaConfig() string {
	c := strings.Replace(AccountsConfig, "  rateLimit:\n",
		"  quotas: {default: {perDay: 1000000000000000}}\n  rateLimit:\n", 1)
	return strings.Replace(c, "    url: ${ACCOUNTS_URL:-}\n", "    url: ${ACCOUNTS_URL:-}\n    allowance: {reserve: 10%}\n", 1)
}
