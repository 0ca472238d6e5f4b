package accounts_test

import (
	"testing"
)

// TestItemContract walks the /{version}/accounts/{accountId} row of the
// accounts table (DESIGN.md section 5).
func TestItemContract(t *testing.T) {
	t.Parallel()
	runContract(t, []contractCase{
		{
			desc: "v2 get one account", method: "GET", path: "/v2/accounts/" + idA,
			script:       map[string][]reply{"GET /api/v1/account/" + idA: {{200, `[{"Id":"` + idA + `","Name":"Acme","Phone":null}]`}}},
			wantUpstream: []string{"GET /api/v1/account/" + idA},
			wantStatus:   200, wantResult: `{"id":"` + idA + `","name":"Acme"}`,
		},
		{
			desc: "v1 get one account has every field in legacy names", method: "GET", path: "/v1/accounts/" + idA,
			script:       map[string][]reply{"GET /api/v1/account/" + idA: {{200, `[{"Id":"` + idA + `","Name":"Acme","BillingCity":"Lyon","External_Id__c":"E1"}]`}}},
			wantUpstream: []string{"GET /api/v1/account/" + idA},
			wantStatus:   200, wantResult: `{"id":"` + idA + `","name":"Acme","billingcity":"Lyon","externalid":"E1"}`,
		},
		{
			desc: "v3 get keeps nulls; a 15-character id is accepted", method: "GET", path: "/v3/accounts/" + idA[:15],
			script:       map[string][]reply{"GET /api/v1/account/" + idA[:15]: {{200, `{"Id":"` + idA + `","Phone":null}`}}},
			wantUpstream: []string{"GET /api/v1/account/" + idA[:15]},
			wantStatus:   200, wantResult: `{"id":"` + idA + `","phone":null}`,
		},
		{
			desc: "get with a malformed id", method: "GET", path: "/v2/accounts/001..%2F..",
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "accountId",
		},
		{
			desc: "get an unknown account", method: "GET", path: "/v2/accounts/" + idA,
			script:       map[string][]reply{"GET /api/v1/account/" + idA: {{404, `{"message":"account not found"}`}}},
			wantUpstream: []string{"GET /api/v1/account/" + idA},
			wantStatus:   404, wantCode: "SOBJECT_OPERATION_FAILED",
		},
		{
			desc: "update the fields given", method: "PUT", path: "/v2/accounts/" + idA, body: `{"billingCity":"Paris","sicDesc":null}`,
			script:       map[string][]reply{`POST /api/v1/account/` + idA + ` {"BillingCity":"Paris","SicDesc":null}`: {{200, success}}},
			wantUpstream: []string{`POST /api/v1/account/` + idA + ` {"BillingCity":"Paris","SicDesc":null}`},
			wantStatus:   200, wantResult: `""`,
		},
		{
			desc: "update with the path's id in the body", method: "PUT", path: "/v2/accounts/" + idA, body: `{"id":"` + idA[:15] + `","name":"N"}`,
			script:       map[string][]reply{`POST /api/v1/account/` + idA + ` {"Name":"N"}`: {{200, success}}},
			wantUpstream: []string{`POST /api/v1/account/` + idA + ` {"Name":"N"}`},
			wantStatus:   200, wantResult: `""`,
		},
		{
			desc: "update with another id in the body", method: "PUT", path: "/v2/accounts/" + idA, body: `{"id":"` + idB + `"}`,
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "id",
		},
		{
			desc: "update of a missing account", method: "PUT", path: "/v2/accounts/" + idB, body: `{"name":"N"}`,
			script:       map[string][]reply{`POST /api/v1/account/` + idB + ` {"Name":"N"}`: {{404, `{"message":"account not found"}`}}},
			wantUpstream: []string{`POST /api/v1/account/` + idB + ` {"Name":"N"}`},
			wantStatus:   404, wantCode: "SOBJECT_OPERATION_FAILED",
		},
		{
			desc: "update the backend answers {status: failure}", method: "PUT", path: "/v2/accounts/" + idA, body: `{"name":"N"}`,
			script:       map[string][]reply{`POST /api/v1/account/` + idA + ` {"Name":"N"}`: {{200, `{status : failure}`}}},
			wantUpstream: []string{`POST /api/v1/account/` + idA + ` {"Name":"N"}`},
			wantStatus:   400, wantCode: "SOBJECT_OPERATION_FAILED",
		},
		{
			desc: "update merge: read, merge, send the whole record", method: "PUT", path: "/v2/accounts/" + idA,
			body: `{"billingCity":"Paris","sicDesc":null}`, backend: &originalController,
			script: map[string][]reply{
				"GET /api/v1/account/" + idA: {{200, `[{"Name":"Acme"}]`}},
				`POST /api/v1/account/` + idA + ` {"BillingCity":"Paris","Name":"Acme","SicDesc":null}`: {{200, `{status: success}`}},
			},
			wantUpstream: []string{"GET /api/v1/account/" + idA, `POST /api/v1/account/` + idA + ` {"BillingCity":"Paris","Name":"Acme","SicDesc":null}`},
			wantStatus:   200, wantResult: `""`,
		},
		{
			desc: "update merge of an unknown account sends nothing", method: "PUT", path: "/v2/accounts/" + idA,
			body: `{"name":"N"}`, backend: &originalController,
			script:       map[string][]reply{"GET /api/v1/account/" + idA: {{404, `{"message":"account not found"}`}}},
			wantUpstream: []string{"GET /api/v1/account/" + idA},
			wantStatus:   404, wantCode: "SOBJECT_OPERATION_FAILED",
		},
		{
			desc: "update with an unknown field", method: "PUT", path: "/v2/accounts/" + idA, body: `{"nickname":"N"}`,
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED", wantMessage: `"nickname"`,
		},
		{
			desc: "delete one account", method: "DELETE", path: "/v2/accounts/" + idA,
			script:       map[string][]reply{"DELETE /api/v1/account/" + idA: {{200, success}}},
			wantUpstream: []string{"DELETE /api/v1/account/" + idA},
			wantStatus:   200, wantResult: `""`,
		},
		{
			desc: "delete a missing account", method: "DELETE", path: "/v2/accounts/" + idA,
			script:       map[string][]reply{"DELETE /api/v1/account/" + idA: {{404, `{"message":"account not found"}`}}},
			wantUpstream: []string{"DELETE /api/v1/account/" + idA},
			wantStatus:   404, wantCode: "SOBJECT_OPERATION_FAILED",
		},
		{
			desc: "POST on an account", method: "POST", path: "/v2/accounts/" + idA, body: `{"name":"N"}`,
			wantStatus: 405, wantCode: "URL_INVALID", wantAllow: "DELETE, GET, HEAD, OPTIONS, PUT",
		},
	})
}
