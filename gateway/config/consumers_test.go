package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidateQuotasAndAllowance(t *testing.T) {
	t.Parallel()
	const key = "f35cbe46658bb1f2d604d76215f8ae39debc106fa9826efb923253ec27ff5553"
	const ups = "upstreams: {data: {url: sandbox}}\n"
	tests := []struct {
		desc, yaml string
		wants      []string // empty: valid
	}{
		{desc: "every form", yaml: ups + `auth:
  apiKeys: [{sha256: ` + key + `, userId: reader, quota: {perDay: 100, upstreams: {data: {perDay: 10}}}, essential: true}]
  quotas:
    users: {alice: {perMonth: 5000}}
    roles: [{role: partner, perDay: 500, perMonth: 10000}, {role: trial, upstreams: {data: {perMonth: 50}}}]
    default: {perDay: 10000}
  essential: {users: [batch], roles: [operator]}`},
		{desc: "a reserve and a poll", yaml: "upstreams: {data: {url: sandbox, allowance: {reserve: 10%, poll: 5m}}}"},
		{desc: "an absolute reserve", yaml: "upstreams: {data: {url: sandbox, allowance: {reserve: '1500'}}}"},
		{desc: "essential route", yaml: ups + "routes: [{path: '/{version}/data', kind: data, action: versions, upstream: data, essential: true}]"},
		{desc: "a quota that limits nothing", yaml: ups + "auth: {quotas: {users: {alice: {}}}}",
			wants: []string{"auth.quotas.users.alice: limits nothing"}},
		{desc: "negative windows", yaml: ups + "auth: {quotas: {default: {perDay: -1, perMonth: -2}}}",
			wants: []string{"auth.quotas.default.perDay: must not be negative", "auth.quotas.default.perMonth: must not be negative"}},
		{desc: "a month smaller than a day", yaml: ups + "auth: {quotas: {roles: [{role: r, perDay: 100, perMonth: 10}]}}",
			wants: []string{"auth.quotas.roles[0].perMonth: 10 is less than perDay (100)"}},
		{desc: "an unknown upstream", yaml: ups + "auth: {quotas: {default: {upstreams: {crm: {perDay: 1}}}}}",
			wants: []string{`auth.quotas.default.upstreams.crm: no upstream named "crm"`}},
		{desc: "an upstream quota that limits nothing", yaml: ups + "auth: {quotas: {default: {perDay: 5, upstreams: {data: {}}}}}",
			wants: []string{"auth.quotas.default.upstreams.data: limits nothing"}},
		{desc: "a role twice, a role missing", yaml: ups + "auth: {quotas: {roles: [{role: a, perDay: 1}, {role: a, perDay: 2}, {perDay: 3}]}}",
			wants: []string{`auth.quotas.roles[1].role: "a" is listed twice`, "auth.quotas.roles[2].role: required"}},
		{desc: "a key's quota", yaml: ups + "auth: {mode: apikey, apiKeys: [{sha256: " + key + ", userId: r, quota: {perDay: -5}}]}",
			wants: []string{"auth.apiKeys[0].quota.perDay: must not be negative"}},
		{desc: "empty essential names", yaml: ups + "auth: {essential: {users: [''], roles: ['']}}",
			wants: []string{"auth.essential.users[0]: must not be empty", "auth.essential.roles[0]: must not be empty"}},
		{desc: "no consumers kept", yaml: ups + "auth: {quotas: {maxConsumers: -1}}",
			wants: []string{"auth.quotas.maxConsumers: must be at least 1"}},
		{desc: "a reserve of everything", yaml: "upstreams: {data: {url: sandbox, allowance: {reserve: 100%}}}",
			wants: []string{`upstreams.data.allowance.reserve: must be a percentage from 0% to below 100%, not "100%"`}},
		{desc: "a reserve in words", yaml: "upstreams: {data: {url: sandbox, allowance: {reserve: a tenth}}}",
			wants: []string{`upstreams.data.allowance.reserve: must be a percentage of the org's limit below 100% ("10%") or a number of calls ("1500"), not "a tenth"`}},
		{desc: "a poll that eats the allowance", yaml: "upstreams: {data: {url: sandbox, allowance: {poll: 10s}}}",
			wants: []string{"upstreams.data.allowance.poll: must be 0 (off) or at least 1m0s"}},
		{desc: "an unknown key has its path", yaml: "upstreams: {data: {url: sandbox, allowance: {reserved: 10%}}}",
			wants: []string{"upstreams.data.allowance.reserved (line 2): unknown key; did you mean reserve?"}},
		{desc: "the collector has no allowance", yaml: "log: {collector: {allowance: {reserve: 10%}}}",
			wants: []string{"log.collector.allowance: the collector is no org with an API allowance"}},
		{desc: "a quota key misspelt", yaml: ups + "auth: {quotas: {default: {perday: 5}}}",
			wants: []string{"auth.quotas.default.perday (line 3): unknown key; did you mean perDay?"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assertExactProblems(t, "versions: [v1]\n"+tt.yaml, tt.wants)
		})
	}
}

func TestLimited(t *testing.T) {
	t.Parallel()
	assert.False(t, Auth{}.Limited())
	assert.True(t, Auth{APIKeys: []APIKey{{UserID: "a"}, {UserID: "b", Quota: &Quota{PerDay: 1}}}}.Limited())
	assert.True(t, Auth{Quotas: Quotas{Default: &Quota{PerMonth: 1}}}.Limited())
	assert.True(t, Essential{Roles: []string{"ops"}}.Any())
	assert.False(t, Essential{}.Any())
}
