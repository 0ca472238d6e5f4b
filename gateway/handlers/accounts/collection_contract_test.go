package accounts_test

import (
	"testing"
)

// listAnswer is a backend list with a null, a custom field and a field v1
// does not list.
const listAnswer = `[{"Id":"` + idA + `","Name":"Acme","Total_Assets__c":5.5,"SicDesc":null,"BillingCity":"Paris"}]`

// eightAccounts is the original controller's list of eight accounts: names
// only.
const eightAccounts = `[{"Name":"A1"},{"Name":"A2"},{"Name":"A3"},{"Name":"A4"},{"Name":"A5"},{"Name":"A6"},{"Name":"A7"},{"Name":"A8"}]`

// TestCollectionContract walks the /{version}/accounts row of the accounts
// table (DESIGN.md section 5) for the versions that differ.
func TestCollectionContract(t *testing.T) {
	t.Parallel()
	runContract(t, []contractCase{
		{
			desc: "v1 list keeps Id and Name with legacy names", method: "GET", path: "/v1/accounts",
			script:       map[string][]reply{"GET /api/v1/account/": {{200, listAnswer}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   200, wantResult: `[{"id":"` + idA + `","name":"Acme"}]`,
			noPage: true,
		},
		{
			desc: "v2 list has whole records, derived names, nulls removed", method: "GET", path: "/v2/accounts",
			script:       map[string][]reply{"GET /api/v1/account/": {{200, listAnswer}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   200, wantResult: `[{"id":"` + idA + `","name":"Acme","totalAssets":5.5,"billingCity":"Paris"}]`,
		},
		{
			desc: "v3 list keeps nulls", method: "GET", path: "/v3/accounts",
			script:       map[string][]reply{"GET /api/v1/account/": {{200, listAnswer}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   200, wantResult: `[{"id":"` + idA + `","name":"Acme","totalAssets":5.5,"sicDesc":null,"billingCity":"Paris"}]`,
		},
		{
			desc: "paging backend: limit and offset page the list there; a full page links the next", method: "GET",
			path:         "/v2/accounts?limit=1&offset=2",
			script:       map[string][]reply{"GET /api/v1/account/?limit=1&offset=2": {{200, `[{"Id":"` + idB + `"}]`}}},
			wantUpstream: []string{"GET /api/v1/account/?limit=1&offset=2"},
			wantStatus:   200, wantResult: `[{"id":"` + idB + `"}]`,
			wantPage: `{"start":2,"size":1,"next":"/v2/accounts?limit=1&offset=3"}`,
		},
		{
			desc: "paging backend: a short page is the last", method: "GET", path: "/v2/accounts?limit=5&offset=2",
			script:       map[string][]reply{"GET /api/v1/account/?limit=5&offset=2": {{200, `[{"Id":"` + idB + `"}]`}}},
			wantUpstream: []string{"GET /api/v1/account/?limit=5&offset=2"},
			wantStatus:   200, wantPage: `{"start":2,"size":1}`,
		},
		{
			desc: "limit alone pages from offset 0", method: "GET", path: "/v2/accounts?limit=1",
			script:       map[string][]reply{"GET /api/v1/account/?limit=1&offset=0": {{200, `[]`}}},
			wantUpstream: []string{"GET /api/v1/account/?limit=1&offset=0"},
			wantStatus:   200, wantResult: `[]`, wantPage: `{"start":0,"size":0}`,
		},
		{
			desc: "offset alone answers the rest", method: "GET", path: "/v2/accounts?offset=3&limit=",
			script:       map[string][]reply{"GET /api/v1/account/?offset=3": {{200, `[]`}}},
			wantUpstream: []string{"GET /api/v1/account/?offset=3"},
			wantStatus:   200, wantResult: `[]`, wantPage: `{"start":3,"size":0,"total":3}`,
		},
		{
			desc: "paging backend that does not page is refused, not trusted", method: "GET", path: "/v2/accounts?limit=1&offset=1",
			script:       map[string][]reply{"GET /api/v1/account/?limit=1&offset=1": {{200, `[{"Id":"` + idA + `"},{"Id":"` + idB + `"}]`}}},
			wantUpstream: []string{"GET /api/v1/account/?limit=1&offset=1"},
			wantStatus:   502, wantCode: "CALLOUT_FAILED",
		},
		{
			desc: "paging backend: a page that is not JSON is refused by the rewrite that counts it", method: "GET", path: "/v2/accounts?limit=2&offset=0",
			script:       map[string][]reply{"GET /api/v1/account/?limit=2&offset=0": {{200, `[{"Id":"` + idA + `"},{"Id":x}]`}}},
			wantUpstream: []string{"GET /api/v1/account/?limit=2&offset=0"},
			wantStatus:   502, wantCode: "CALLOUT_FAILED", wantMessage: "not valid JSON",
		},
		{
			desc: "paging adapter: the offset is applied to a list no longer than the limit", method: "GET",
			path:         "/v2/accounts?limit=10&offset=5",
			backend:      &originalController,
			script:       map[string][]reply{"GET /api/v1/account/": {{200, eightAccounts}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   200, wantResult: `[{"name":"A6"},{"name":"A7"},{"name":"A8"}]`,
			wantPage: `{"start":5,"size":3,"total":8}`,
		},
		{
			desc: "paging adapter: limit alone, the next page linked", method: "GET", path: "/v2/accounts?limit=3",
			backend:      &originalController,
			script:       map[string][]reply{"GET /api/v1/account/": {{200, eightAccounts}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   200, wantResult: `[{"name":"A1"},{"name":"A2"},{"name":"A3"}]`,
			wantPage: `{"start":0,"size":3,"total":8,"next":"/v2/accounts?limit=3&offset=3"}`,
		},
		{
			desc: "a malformed limit is refused, not dropped", method: "GET", path: "/v2/accounts?limit=%zz&offset=0",
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "limit",
		},
		{
			desc: "negative limit", method: "GET", path: "/v2/accounts?limit=-1&offset=0",
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "limit",
		},
		{
			desc: "non-numeric offset", method: "GET", path: "/v2/accounts?limit=1&offset=x",
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "offset",
		},
		{
			desc: "a malformed limit given alone is still refused", method: "GET", path: "/v2/accounts?limit=ten",
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "limit",
		},
		{
			desc: "limit above the maximum", method: "GET", path: "/v2/accounts?limit=2001&offset=0",
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "limit",
		},
		{
			desc: "limit given twice", method: "GET", path: "/v2/accounts?limit=1&limit=2&offset=0",
			wantStatus: 400, wantCode: "PARAMETER_INVALID", wantMessage: "more than once",
		},
		{
			desc: "backend failure on list", method: "GET", path: "/v2/accounts",
			script:       map[string][]reply{"GET /api/v1/account/": {{500, `{"message":"db down"}`}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   502, wantCode: "CALLOUT_FAILED",
		},
		{
			desc: "v2 create reverse-maps the body", method: "POST", path: "/v2/accounts",
			body:         `{"name":"Acme","totalAssets":10}`,
			script:       map[string][]reply{`POST /api/v1/account/ {"Name":"Acme","Total_Assets__c":10}`: {{200, `{"id":"` + idB + `"}`}}},
			wantUpstream: []string{`POST /api/v1/account/ {"Name":"Acme","Total_Assets__c":10}`},
			wantStatus:   201, wantResult: `{"id":"` + idB + `"}`,
		},
		{
			desc: "v1 create with legacy names and the original service's non-JSON answer", method: "POST", path: "/v1/accounts",
			body:         `{"name":"Acme","externalid":"X-1","totalassets":3}`,
			script:       map[string][]reply{`POST /api/v1/account/ {"Name":"Acme","External_Id__c":"X-1","Total_Assets__c":3}`: {{200, `{id:` + idB + `}`}}},
			wantUpstream: []string{`POST /api/v1/account/ {"Name":"Acme","External_Id__c":"X-1","Total_Assets__c":3}`},
			wantStatus:   201, wantResult: `{"id":"` + idB + `"}`,
		},
		{
			desc: "create with an unknown exposed field", method: "POST", path: "/v2/accounts",
			body:       `{"name":"Acme","shoeSize":44}`,
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED", wantMessage: `"shoeSize"`,
		},
		{
			desc: "v1 does not take v2 names", method: "POST", path: "/v1/accounts",
			body:       `{"name":"Acme","totalAssets":1}`,
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED", wantMessage: `"totalAssets"`,
		},
		{
			desc: "create with an array body", method: "POST", path: "/v2/accounts", body: `[{"name":"Acme"}]`,
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED", wantMessage: "object",
		},
		{
			desc: "create without a body", method: "POST", path: "/v2/accounts",
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED",
		},
		{
			desc: "create refused by the backend", method: "POST", path: "/v2/accounts", body: `{"website":"x"}`,
			script:       map[string][]reply{`POST /api/v1/account/ {"Website":"x"}`: {{400, `{"message":"Name is required"}`}}},
			wantUpstream: []string{`POST /api/v1/account/ {"Website":"x"}`},
			wantStatus:   400, wantCode: "SOBJECT_OPERATION_FAILED",
		},
		{
			desc: "bulk update answers each item in input order", method: "PUT", path: "/v2/accounts",
			body: `[{"id":"` + idA + `","name":"X"},{"id":"` + idB + `","billingCity":"Oslo"},{"name":"no id"},` +
				`{"id":"bad"},{"id":"` + idA[:15] + `"},7]`,
			script: map[string][]reply{
				`POST /api/v1/account/` + idA + ` {"Name":"X"}`:           {{200, success}},
				`POST /api/v1/account/` + idB + ` {"BillingCity":"Oslo"}`: {{404, `{"message":"account not found"}`}},
			},
			concurrent: true,
			wantUpstream: []string{
				`POST /api/v1/account/` + idA + ` {"Name":"X"}`,
				`POST /api/v1/account/` + idB + ` {"BillingCity":"Oslo"}`,
			},
			wantStatus: 200,
			wantResult: `[{"id":"` + idA + `","statusCode":200},` +
				`{"id":"` + idB + `","statusCode":404,"errors":[{"errorCode":"NOT_FOUND","message":"no account has this id"}]},` +
				`{"statusCode":400,"errors":[{"errorCode":"MISSING_ID","message":"the item has no id"}]},` +
				`{"id":"bad","statusCode":400,"errors":[{"errorCode":"INVALID_ID","message":"the id must be 15 or 18 letters and digits"}]},` +
				`{"id":"` + idA[:15] + `","statusCode":400,"errors":[{"errorCode":"DUPLICATE_ID","message":"an earlier item has the same id"}]},` +
				`{"statusCode":400,"errors":[{"errorCode":"INVALID_ITEM","message":"the item must be a JSON object"}]}]`,
		},
		{
			desc: "v1 bulk update results are not cut to Id and Name", method: "PUT", path: "/v1/accounts",
			body:         `[{"id":"` + idA + `","billingcity":"Rome"}]`,
			script:       map[string][]reply{`POST /api/v1/account/` + idA + ` {"BillingCity":"Rome"}`: {{200, `{status : success}`}}},
			wantUpstream: []string{`POST /api/v1/account/` + idA + ` {"BillingCity":"Rome"}`},
			wantStatus:   200, wantResult: `[{"id":"` + idA + `","statusCode":200}]`,
		},
		{
			desc: "bulk update with a backend failure and a refusal", method: "PUT", path: "/v2/accounts",
			body: `[{"id":"` + idA + `","numberOfEmployees":"many"},{"id":"` + idB + `","name":"Y"}]`,
			script: map[string][]reply{
				`POST /api/v1/account/` + idA + ` {"NumberOfEmployees":"many"}`: {{400, `{"message":"not an integer"}`}},
				`POST /api/v1/account/` + idB + ` {"Name":"Y"}`:                 {{500, `{"message":"boom"}`}},
			},
			concurrent: true,
			wantUpstream: []string{
				`POST /api/v1/account/` + idA + ` {"NumberOfEmployees":"many"}`,
				`POST /api/v1/account/` + idB + ` {"Name":"Y"}`,
			},
			wantStatus: 200,
			wantResult: `[{"id":"` + idA + `","statusCode":400,"errors":[{"errorCode":"REJECTED","message":"the account controller refused the update (status 400)"}]},` +
				`{"id":"` + idB + `","statusCode":502,"errors":[{"errorCode":"CALLOUT_FAILED","message":"the account controller could not apply the update"}]}]`,
		},
		{
			desc: "bulk update of an object", method: "PUT", path: "/v2/accounts", body: `{"id":"` + idA + `"}`,
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED", wantMessage: "array",
		},
		{
			desc: "bulk update with an unknown field", method: "PUT", path: "/v2/accounts",
			body:       `[{"id":"` + idA + `"},{"id":"` + idB + `","colour":"red"}]`,
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED", wantMessage: `"colour"`,
		},
		{
			desc: "bulk update over the item limit", method: "PUT", path: "/v2/accounts", body: manyItems(201),
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED", wantMessage: "at most 200",
		},
		{
			desc: "an empty bulk update", method: "PUT", path: "/v2/accounts", body: `[]`,
			wantStatus: 200, wantResult: `[]`,
		},
		{
			desc: "delete all as admin", method: "DELETE", path: "/v2/accounts", roles: "admin",
			script: map[string][]reply{
				"GET /api/v1/account/":          {{200, `[{"Id":"` + idA + `"},{"Id":"` + idB + `"}]`}, {200, `[]`}},
				"DELETE /api/v1/account/" + idA: {{200, success}},
				"DELETE /api/v1/account/" + idB: {{200, success}},
			},
			wantUpstream: []string{"GET /api/v1/account/", "DELETE /api/v1/account/" + idA,
				"DELETE /api/v1/account/" + idB, "GET /api/v1/account/"},
			wantStatus: 200, wantResult: `{"deleted":2}`,
		},
		{
			desc: "v1 delete all result is not cut to Id and Name", method: "DELETE", path: "/v1/accounts", roles: "user,admin",
			script:       map[string][]reply{"GET /api/v1/account/": {{200, `[]`}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   200, wantResult: `{"deleted":0}`,
		},
		{
			desc: "delete all stopped by a failure says how far it got", method: "DELETE", path: "/v2/accounts", roles: "admin",
			script: map[string][]reply{
				"GET /api/v1/account/":          {{200, `[{"Id":"` + idA + `"},{"Id":"` + idB + `"}]`}},
				"DELETE /api/v1/account/" + idA: {{200, success}},
				"DELETE /api/v1/account/" + idB: {{500, `{"message":"locked"}`}},
			},
			wantUpstream: []string{"GET /api/v1/account/", "DELETE /api/v1/account/" + idA,
				"DELETE /api/v1/account/" + idB},
			wantStatus: 502, wantCode: "CALLOUT_FAILED", wantMessage: "1 accounts were deleted",
		},
		{
			desc: "delete all on a backend that lists names only deletes nothing and says why", method: "DELETE", path: "/v2/accounts",
			roles: "admin", backend: &originalController,
			script:       map[string][]reply{"GET /api/v1/account/": {{200, `[{"Name":"A"},{"Name":"B"}]`}}},
			wantUpstream: []string{"GET /api/v1/account/"},
			wantStatus:   501, wantCode: "SOBJECT_OPERATION_FAILED", wantMessage: "lists accounts without their id",
		},
		{
			desc: "delete all without the admin role", method: "DELETE", path: "/v2/accounts", roles: "user",
			wantStatus: 403, wantCode: "ACCESS_DENIED",
		},
		{
			desc: "delete all without any role", method: "DELETE", path: "/v2/accounts",
			wantStatus: 403, wantCode: "ACCESS_DENIED",
		},
		{
			desc: "PATCH on the collection", method: "PATCH", path: "/v2/accounts", body: `{}`,
			wantStatus: 405, wantCode: "URL_INVALID", wantAllow: "DELETE, GET, HEAD, OPTIONS, POST, PUT",
		},
		{
			desc: "a version that is not served", method: "GET", path: "/v4/accounts",
			wantStatus: 404, wantCode: "URL_INVALID",
		},
	})
}
