package proxy_test

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/upstreams"
	sandboxdata "github.com/restgate/gateway/upstreams/sandbox/dataapi"
)

func TestContactsFromSandboxQuery(t *testing.T) {
	t.Parallel()
	url, _ := handlertest.Sandbox(t, t.TempDir(), func(db *sql.DB) (http.Handler, error) { return sandboxdata.New(db) })
	h := newGateway(t, handlertest.Client(t), map[string]string{"data": url, "fake": url})

	tests := []struct {
		desc, version string
		want, absent  []string
	}{
		{desc: "v1 legacy names", version: "v1", want: []string{"id", "firstname", "lastname", "mailingCity"}, absent: []string{"FirstName", "firstName"}},
		{desc: "v2 derived names", version: "v2", want: []string{"id", "firstName", "lastName", "mailingCountry"}, absent: []string{"FirstName", "firstname"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			a := do(t, h, "GET", "/"+tt.version+"/contacts", "")
			require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
			var records []map[string]any
			require.NoError(t, json.Unmarshal(a.Result, &records), "the result is the records array: %s", a.Result)
			require.NotEmpty(t, records)
			for _, k := range tt.want {
				assert.Contains(t, records[0], k)
			}
			for _, k := range tt.absent {
				assert.NotContains(t, records[0], k)
			}
			last := ""
			for _, r := range records {
				name, _ := r[map[string]string{"v1": "lastname", "v2": "lastName"}[tt.version]].(string)
				assert.LessOrEqual(t, last, name, "ordered by last name")
				last = name
			}
		})
	}
}

func TestForwarding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, method, path, body string
		// backend's answer
		status      int
		contentType string
		answer      string
		// what the backend must receive; sent false: nothing reaches it;
		// sentMethod "" is method
		sent                bool
		sentMethod          string
		rawPath, rawQuery   string
		sentBody, sentCType string
		// what the client gets
		wantStatus int
		wantCode   string
		wantResult string
	}{
		{desc: "list with fixed and passed query", method: "GET", path: "/v2/things?limit=5&offset=10&secret=x",
			status: 200, contentType: "application/json", answer: `[{"Id":"1","Display_Name__c":"A","Size":null}]`,
			sent: true, rawPath: "/api/things", rawQuery: "fixed=1&limit=5&offset=10",
			wantStatus: 200, wantResult: `[{"id":"1","displayName":"A"}]`},
		{desc: "v3 keeps nulls", method: "GET", path: "/v3/things",
			status: 200, contentType: "application/json", answer: `[{"Id":"1","Size":null}]`,
			sent: true, rawPath: "/api/things", rawQuery: "fixed=1",
			wantStatus: 200, wantResult: `[{"id":"1","size":null}]`},
		{desc: "path parameter is escaped", method: "GET", path: "/v2/things/a%2Fb%3Fc",
			status: 200, contentType: "application/json; charset=utf-8", answer: `{"Id":"a/b?c"}`,
			sent: true, rawPath: "/api/things/a%2Fb%3Fc",
			wantStatus: 200, wantResult: `{"id":"a/b?c"}`},
		{desc: "HEAD asks the backend as GET, so it answers GET's status", method: "HEAD", path: "/v2/things/9",
			status: 404, contentType: "application/json", answer: `[{"message":"no such thing","errorCode":"NOT_FOUND"}]`,
			sent: true, sentMethod: "GET", rawPath: "/api/things/9", wantStatus: 404, wantCode: "SOBJECT_OPERATION_FAILED"},
		{desc: "dot-dot parameter is refused", method: "GET", path: "/v2/things/..",
			wantStatus: 400, wantCode: "PARAMETER_INVALID"},
		{desc: "parameter in the fixed query is query-escaped", method: "GET", path: "/v2/things/x%26y=1/parts",
			status: 200, contentType: "application/json", answer: `{"total":1,"parts":[{"Part_Name__c":"bolt"}],"more":false}`,
			sent: true, rawPath: "/api/parts", rawQuery: "of=x%26y%3D1",
			wantStatus: 200, wantResult: `[{"partName":"bolt"}]`},
		{desc: "POST body is reverse-mapped", method: "POST", path: "/v2/things", body: `{"displayName":"B","size":3}`,
			status: 201, contentType: "application/json", answer: `{"Id":"2"}`,
			sent: true, rawPath: "/api/things", rawQuery: "fixed=1", sentBody: `{"Display_Name__c":"B","Size":3}`, sentCType: "application/json",
			wantStatus: 201, wantResult: `{"id":"2"}`},
		{desc: "PATCH body is reverse-mapped", method: "PATCH", path: "/v2/things/7", body: `{"size":4}`,
			status: 204, sent: true, rawPath: "/api/things/7", sentBody: `{"Size":4}`, sentCType: "application/json",
			wantStatus: 200, wantResult: `""`},
		{desc: "unknown exposed field is refused", method: "PUT", path: "/v2/things/7", body: `{"colour":"red"}`,
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED"},
		{desc: "empty body is refused", method: "PUT", path: "/v2/things/7",
			wantStatus: 400, wantCode: "JSON_SERIALIZATION_FAILED"},
		{desc: "DELETE sends no body", method: "DELETE", path: "/v2/things/7",
			status: 200, contentType: "application/json", answer: ``,
			sent: true, rawPath: "/api/things/7", wantStatus: 200, wantResult: `""`},
		{desc: "backend 404 keeps its status and message", method: "GET", path: "/v2/things/9",
			status: 404, contentType: "application/json", answer: `[{"message":"no such thing","errorCode":"NOT_FOUND"}]`,
			sent: true, rawPath: "/api/things/9", wantStatus: 404, wantCode: "SOBJECT_OPERATION_FAILED"},
		{desc: "backend 409", method: "DELETE", path: "/v2/things/9",
			status: 409, contentType: "text/plain", answer: `locked`,
			sent: true, rawPath: "/api/things/9", wantStatus: 409, wantCode: "SOBJECT_OPERATION_FAILED"},
		{desc: "backend 500 is a failed callout", method: "GET", path: "/v2/things/9",
			status: 500, contentType: "application/json", answer: `{"error":"boom"}`,
			sent: true, rawPath: "/api/things/9", wantStatus: 502, wantCode: "CALLOUT_FAILED"},
		{desc: "non-JSON answer is a failed callout", method: "GET", path: "/v2/things/9",
			status: 200, contentType: "text/html", answer: `<html>login</html>`,
			sent: true, rawPath: "/api/things/9", wantStatus: 502, wantCode: "CALLOUT_FAILED"},
		{desc: "malformed JSON is a failed callout", method: "GET", path: "/v2/things/9",
			status: 200, contentType: "application/json", answer: `{"Id":`,
			sent: true, rawPath: "/api/things/9", wantStatus: 502, wantCode: "CALLOUT_FAILED"},
		{desc: "missing resultPath member is a failed callout", method: "GET", path: "/v2/things/1/parts",
			status: 200, contentType: "application/json", answer: `{"total":0}`,
			sent: true, rawPath: "/api/parts", rawQuery: "of=1", wantStatus: 502, wantCode: "CALLOUT_FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			base, got := fakeBackend(t, tt.status, tt.contentType, tt.answer)
			h := newGateway(t, handlertest.Client(t), map[string]string{"fake": base, "data": base})
			a := do(t, h, tt.method, tt.path, tt.body)
			assert.Equal(t, tt.wantStatus, a.Status, "%s", a.Raw)
			assert.Equal(t, tt.wantCode, a.ResponseCode.ID, "%s", a.Raw)
			if tt.wantResult != "" {
				assert.JSONEq(t, tt.wantResult, string(a.Result))
			}
			if !tt.sent {
				assert.Empty(t, got, "nothing reaches the backend")
				return
			}
			require.Len(t, got, 1)
			s := <-got
			assert.Equal(t, cmpOr(tt.sentMethod, tt.method), s.Method)
			assert.Equal(t, tt.rawPath, s.RawPath)
			assert.Equal(t, tt.rawQuery, s.RawQuery)
			assert.Equal(t, tt.sentCType, s.ContentType)
			if tt.sentBody != "" {
				assert.JSONEq(t, tt.sentBody, s.Body)
			} else {
				assert.Empty(t, s.Body)
			}
		})
	}
}

func TestRejectionMessageReachesSystemMessage(t *testing.T) {
	t.Parallel()
	base, _ := fakeBackend(t, 400, "application/json", `[{"message":"unexpected token: FROM","errorCode":"MALFORMED_QUERY"}]`)
	h := newGateway(t, handlertest.Client(t), map[string]string{"fake": base, "data": base})
	a := do(t, h, "GET", "/v2/things/1", "")
	require.Equal(t, 400, a.Status)
	assert.Equal(t, "SOBJECT_OPERATION_FAILED", a.ResponseCode.ID)
	assert.Contains(t, a.ResponseCode.FormattedSystemMessage, "unexpected token: FROM")
}

func TestSharedClientFailures(t *testing.T) {
	t.Parallel()
	base, _ := fakeBackend(t, 500, "application/json", `{}`)
	client, err := upstreams.NewClient("fake", upstreams.Settings{URL: base,
		Breaker: upstreams.BreakerSettings{ConsecutiveFailures: 1}, Retry: upstreams.RetrySettings{Attempts: 1}}, nil)
	require.NoError(t, err)
	h := newGateway(t, client, map[string]string{"fake": base, "data": base})
	first := do(t, h, "GET", "/v2/things/1", "")
	assert.Equal(t, 502, first.Status)
	assert.Equal(t, "CALLOUT_FAILED", first.ResponseCode.ID)
	open := do(t, h, "GET", "/v2/things/1", "")
	assert.Equal(t, 503, open.Status, "the breaker opened after one failure")
	assert.Equal(t, "CALLOUT_FAILED", open.ResponseCode.ID)
	assert.NotEmpty(t, open.Header.Get("Retry-After"))
}

func TestBackendAddressesAreRemoved(t *testing.T) {
	t.Parallel()
	// A Flowable-like answer: addresses on the backend's own host under
	// many names, beside data that only looks like a URL.
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"Id":"1","url":"`+base+`/runtime/tasks/1","processDefinitionUrl":"`+
			strings.ReplaceAll(base, "/", `\/`)+`/repository/x","Website":"https://example.com/","note":"`+base+`ish"}`)
	}))
	t.Cleanup(srv.Close)
	base = srv.URL
	h := newGateway(t, srv.Client(), map[string]string{"fake": srv.URL, "data": srv.URL})
	a := do(t, h, "GET", "/v2/things/1", "")
	require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	assert.NotContains(t, string(a.Result), srv.URL+"/")
	assert.NotContains(t, string(a.Result), "processDefinitionUrl")
	assert.Contains(t, string(a.Result), `"https://example.com/"`, "other hosts are data")
	assert.Contains(t, string(a.Result), `ish"`, "a string that only starts like the host is kept")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
