package data_test

import (
	"net/http"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
)

func TestQueryMapsRecordsByType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, version, want string
	}{
		{desc: "v1: the model's legacy names, derived names for Contact, nulls dropped", version: "v1", want: `{
			"totalSize":5,"done":false,"nextRecordsUrl":"/v1/query/01gD0000002HU6KIAW-3","records":[
			{"attributes":{"type":"Account"},"id":"001A","accountname":"Acme","totalAssets":12.50},
			{"attributes":{"type":"Contact"},"id":"003B","firstName":"Ann","lastName":"Lee"},
			{"attributes":{"type":"AggregateResult"},"expr0":7}]}`},
		{desc: "v2: derived names", version: "v2", want: `{
			"totalSize":5,"done":false,"nextRecordsUrl":"/v2/query/01gD0000002HU6KIAW-3","records":[
			{"attributes":{"type":"Account"},"id":"001A","name":"Acme","totalAssets":12.50},
			{"attributes":{"type":"Contact"},"id":"003B","firstName":"Ann","lastName":"Lee"},
			{"attributes":{"type":"AggregateResult"},"expr0":7}]}`},
		{desc: "v3: nulls kept", version: "v3", want: `{
			"totalSize":5,"done":false,"nextRecordsUrl":"/v3/query/01gD0000002HU6KIAW-3","records":[
			{"attributes":{"type":"Account"},"id":"001A","name":"Acme","totalAssets":12.50,"billingCity":null},
			{"attributes":{"type":"Contact"},"id":"003B","firstName":"Ann","lastName":"Lee","email":null},
			{"attributes":{"type":"AggregateResult"},"expr0":7,"Name_Total":null}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t)
			a := get(t, newGateway(t, api.URL, handlertest.Client(t)), queryPath(tt.version, "SELECT mixed"))
			require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
			assert.JSONEq(t, tt.want, string(a.Result))
			assert.Contains(t, string(a.Result), `"totalAssets":12.50`, "numbers keep their text")
		})
	}
}

func TestQueryMoreFollowsTheGatewayLocator(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	gw := newGateway(t, api.URL, handlertest.Client(t))
	a := get(t, gw, "/v2/query/01gD0000002HU6KIAW-3")
	require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	assert.JSONEq(t, `{"totalSize":5,"done":true,"records":[
		{"attributes":{"type":"Contact"},"id":"003C","firstName":"Bo","lastName":"Ng","email":"bo@example.com"},
		{"attributes":{"type":"Account"},"id":"001D","name":"Initech"}]}`, string(a.Result))
}

func TestSearchMapsRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, version, want string
		mapped              bool
	}{
		{desc: "v2: derived names", version: "v2", mapped: true,
			want: `{"searchRecords":[{"attributes":{"type":"Contact"},"id":"003B","firstName":"Ann"}]}`},
		{desc: "v1: key maps off", version: "v1",
			want: `{"searchRecords":[{"attributes":{"type":"Contact"},"Id":"003B","FirstName":"Ann"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t)
			a := get(t, newGateway(t, api.URL, handlertest.Client(t)), "/"+tt.version+"/search?q=FIND+%7BAnn%7D")
			require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
			assert.JSONEq(t, tt.want, string(a.Result))
			require.NotNil(t, a.MapKeysFlag)
			assert.Equal(t, tt.mapped, *a.MapKeysFlag, "mapKeysFlag says whether a key map was applied")
		})
	}
}

func TestPassThroughAnswers(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	gw := newGateway(t, api.URL, handlertest.Client(t))
	a := get(t, gw, "/v2/data")
	require.Equal(t, http.StatusOK, a.Status)
	assert.JSONEq(t, `[{"label":"Winter '16","url":"/v2/data/v35.0","version":"35.0"}]`, string(a.Result),
		"the backend's address becomes the gateway's")
	a = get(t, gw, "/v2/sobjects/Contact/describe")
	require.Equal(t, http.StatusOK, a.Status)
	assert.JSONEq(t, contactDescribe, string(a.Result), "describe keeps the internal names")
	a = get(t, gw, "/v1/sobjects/Contact")
	require.Equal(t, http.StatusOK, a.Status)
	assert.JSONEq(t, `{"objectDescribe":{"name":"Contact"},"recentItems":[]}`, string(a.Result))
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, path string
		status     int
		code       string
		client     string
		system     string
	}{
		{desc: "query without q", path: "/v2/query", status: 400, code: "PARAMETER_INVALID", client: "Invalid parameter q: required"},
		{desc: "blank query", path: "/v2/query?q=+", status: 400, code: "PARAMETER_INVALID", client: "Invalid parameter q: required"},
		{desc: "two queries", path: "/v2/query?q=a&q=b", status: 400, code: "PARAMETER_INVALID", client: "given more than once"},
		{desc: "search without q", path: "/v2/search?q=", status: 400, code: "PARAMETER_INVALID", client: "Invalid parameter q"},
		{desc: "malformed query", path: queryPath("v2", "SELECT Id FORM Account"), status: 400, code: "QUERY_OPERATION_FAILED",
			system: "unexpected token: FORM"},
		{desc: "bad locator", path: "/v2/query/01gXXX-1", status: 400, code: "QUERY_OPERATION_FAILED", system: "invalid query locator"},
		{desc: "locator refused before sending", path: "/v2/query/01g%2E%2E", status: 400, code: "QUERY_OPERATION_FAILED",
			system: "malformed query locator"},
		{desc: "bad search", path: "/v2/search?q=x", status: 400, code: "SEARCH_FAILED", system: "longer than one character"},
		{desc: "unknown type", path: "/v2/sobjects/Nope__c/describe", status: 404, code: "SOBJECT_OPERATION_FAILED",
			system: "The requested resource does not exist"},
		{desc: "unknown type basics", path: "/v2/sobjects/Nope__c", status: 404, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "unknown API version", path: "/v2/data/v99.0", status: 404, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "backend failure", path: queryPath("v2", "SELECT down"), status: 502, code: "CALLOUT_FAILED",
			system: "An unexpected error occurred."},
		{desc: "next batch elsewhere", path: queryPath("v2", "SELECT odd next"), status: 502, code: "CALLOUT_FAILED",
			system: "nextRecordsUrl is not a query locator"},
	}
	api := newFakeAPI(t)
	gw := newGateway(t, api.URL, handlertest.Client(t))
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			a := get(t, gw, tt.path)
			assert.Equal(t, tt.status, a.Status)
			assert.Equal(t, tt.code, a.ResponseCode.ID)
			assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.client)
			assert.Contains(t, a.ResponseCode.FormattedSystemMessage, tt.system)
			switch {
			case tt.system != "" && tt.status < 500:
				assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.system, "a rejection's reason reaches the client")
			case tt.system != "":
				assert.NotContains(t, a.ResponseCode.FormattedClientMessage, tt.system, "a failure's text only in the system message")
			}
		})
	}
}

func TestModelOfAnUndeclaredTypeDescribesOnce(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	api.describeGate = make(chan struct{})
	gw := newGateway(t, api.URL, handlertest.Client(t))
	const callers = 50
	results := make([]handlertest.Answer, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = get(t, gw, "/v2/settings/model/Contact")
		}()
	}
	// Let the callers pile up on the one describe in flight, then answer.
	for api.describes.Load() == 0 {
		runtime.Gosched()
	}
	close(api.describeGate)
	wg.Wait()
	for _, a := range results {
		require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
		assert.JSONEq(t, `{"Account":"account","AccountId":"accountId","Email":"email","FirstName":"firstName","Id":"id","LastName":"lastName"}`, string(a.Result),
			"fields and the relationship names of the describe")
	}
	assert.Equal(t, int32(1), api.describes.Load(), "one describe for 50 concurrent requests")

	// The query mapping uses the same cache.
	a := get(t, gw, queryPath("v2", "SELECT mixed"))
	require.Equal(t, http.StatusOK, a.Status)
	assert.Equal(t, int32(3), api.describes.Load(), "AggregateResult and the declared Account (for its relationships) were described for the query")
}

func TestSubqueriesAndBareSearchAgainstDocumentedShapes(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t)
	gw := newGateway(t, api.URL, handlertest.Client(t))
	a := get(t, gw, queryPath("v2", "SELECT with children"))
	require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	assert.JSONEq(t, `{"totalSize":2,"done":true,"records":[
		{"attributes":{"type":"Account"},"name":"Acme",
		 "Contacts":{"totalSize":3,"done":false,"nextRecordsUrl":"/v2/query/01gD0000002HU6KIAW-200",
		  "records":[{"attributes":{"type":"Contact"},"lastName":"Lee","account":{"attributes":{"type":"Account"},"name":"Acme"}}]}},
		{"attributes":{"type":"Account"},"name":"Initech"}]}`, string(a.Result),
		"each record by its own type; the subquery's next batch through the gateway (the fake's Account declares no Contacts relationship, so the name stays)")

	a = get(t, gw, "/v2/search?q=FIND+%7Bbare%7D")
	require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	assert.JSONEq(t, `{"searchRecords":[{"attributes":{"type":"Contact"},"id":"003B","firstName":"Ann"}]}`, string(a.Result),
		"a v35.0 bare array answered in the one shape")
}
