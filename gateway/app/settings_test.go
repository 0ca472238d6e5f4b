package app

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingsModel: GET publishes a type's key map; POST with a record in
// exposed names answers it in internal names, and so does the seed's GET
// with a body, which existing callers still send.
func TestSettingsModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig, nil)
	tests := []struct {
		desc, method, path, body string
		status                   int
		id                       string
		result                   any
	}{
		{desc: "v2 publishes the derived map", path: "/v2/settings/model/Account", status: 200,
			result: map[string]any{"Id": "id", "Name": "name", "Total_Assets__c": "totalAssets", "SicDesc": "sicDesc"}},
		{desc: "v1 publishes the legacy map", path: "/v1/settings/model/Account", status: 200,
			result: map[string]any{"Id": "id", "Name": "name", "Total_Assets__c": "totalassets", "SicDesc": "sicdesc"}},
		{desc: "POST: a body in exposed names comes back in internal names", method: "POST", path: "/v2/settings/model/Account",
			body: `{"totalAssets": 12345678901234567890, "name": "Acme", "sicDesc": null}`, status: 200,
			result: map[string]any{"Total_Assets__c": 12345678901234567890.0, "Name": "Acme"}},
		{desc: "GET with a body (the seed's form) answers as POST", path: "/v2/settings/model/Account",
			body: `{"totalAssets": 12345678901234567890, "name": "Acme", "sicDesc": null}`, status: 200,
			result: map[string]any{"Total_Assets__c": 12345678901234567890.0, "Name": "Acme"}},
		{desc: "POST in v1's names", method: "POST", path: "/v1/settings/model/Account",
			body: `{"totalassets": 1, "sicdesc": "x"}`, status: 200, result: map[string]any{"Total_Assets__c": 1.0, "SicDesc": "x"}},
		{desc: "POST without a body is a 400: GET publishes the map", method: "POST", path: "/v2/settings/model/Account",
			status: 400, id: "JSON_SERIALIZATION_FAILED"},
		{desc: "an unknown exposed field is a 400 naming it", method: "POST", path: "/v2/settings/model/Account",
			body: `{"colour": "red"}`, status: 400, id: "JSON_SERIALIZATION_FAILED"},
		{desc: "GET: an unknown exposed field is a 400 too", path: "/v2/settings/model/Account",
			body: `{"colour": "red"}`, status: 400, id: "JSON_SERIALIZATION_FAILED"},
		{desc: "invalid JSON is a 400", method: "POST", path: "/v2/settings/model/Account", body: `{"name": `, status: 400, id: "JSON_SERIALIZATION_FAILED"},
		{desc: "unknown type", path: "/v2/settings/model/Nothing", status: 404, id: "SOBJECT_OPERATION_FAILED"},
		{desc: "POST of an unknown type", method: "POST", path: "/v2/settings/model/Nothing", body: `{"name": "a"}`,
			status: 404, id: "SOBJECT_OPERATION_FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			rec, env := h.do(t, cmpOr(tt.method, "GET"), tt.path, tt.body, nil)
			require.Equal(t, tt.status, rec.Code, rec.Body.String())
			assert.Equal(t, tt.id, responseID(env))
			if tt.result != nil {
				assert.Equal(t, tt.result, env["result"])
			}
			if tt.body == "" && tt.status == 200 {
				assert.Equal(t, env["result"], env["mapKeys"], "result and mapKeys both carry the map")
				assert.Equal(t, true, env["mapKeysFlag"])
			}
			if tt.id != "" {
				assert.Contains(t, clientMessage(env), "Encountered an error")
			}
		})
	}
	rec, env := h.do(t, "POST", "/v2/settings/model/Account", "", nil)
	require.Equal(t, 400, rec.Code)
	assert.Contains(t, clientMessage(env), "a JSON body is required: the record to map (GET publishes the key map)")
}

func TestSettingsModelKeepsNumberText(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig, nil)
	for _, method := range []string{"POST", "GET"} {
		rec, _ := h.do(t, method, "/v2/settings/model/Account", `{"totalAssets":1.10,"id":"001"}`, nil)
		assert.Contains(t, rec.Body.String(), `"result":{"Total_Assets__c":1.10,"Id":"001"}`, method)
	}
}

func TestCallLogEntry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig, nil)
	h.do(t, "GET", "/v2/settings/model/Account", `{"name":"a"}`, map[string]string{
		"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"})
	h.do(t, "GET", "/v2/settings/model/Account", `{"name":"a"}`, nil)
	entries := h.log.all()
	require.Len(t, entries, 2)
	e := entries[0]
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", e.TraceID, "the client's trace is continued")
	assert.Equal(t, "HTTPGET", e.Method)
	assert.Equal(t, "/v2/settings/model/Account", e.Path)
	assert.Equal(t, "/{version}/settings/model/{objectName}", e.Route)
	assert.Equal(t, "v2", e.Version)
	assert.Equal(t, `{"name":"a"}`, string(e.Body))
	assert.Equal(t, "anonymous", e.UserID)
	assert.False(t, e.Duplicate)
	assert.True(t, entries[1].Duplicate, "same user, method, route and body within the window")
	assert.NotEqual(t, e.TraceID, entries[1].TraceID)
}
