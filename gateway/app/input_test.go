package app

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inputBackend serves the account and feed contracts and keeps every body
// it is sent.
type inputBackend struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newInputBackend(t *testing.T) *inputBackend {
	t.Helper()
	b := &inputBackend{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.bodies = append(b.bodies, string(body))
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"001000000000001AAA"}`))
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *inputBackend) sent() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.bodies...)
}

func inputHarness(t *testing.T) (*harness, *inputBackend) {
	t.Helper()
	b := newInputBackend(t)
	return newHarness(t, fmt.Sprintf(`
versions: [v1, v2]
models:
  Account: {fields: [Id, Name, Total_Assets__c]}
upstreams:
  a: {url: %[1]s, retry: {attempts: 1}}
  feed: {url: %[1]s/feed, retry: {attempts: 1}}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: a, model: Account, methods: [POST, PUT]}
  - {path: "/{version}/settings/model/{objectName}", kind: model}
  - {path: "/{version}/messages", kind: messages, upstream: feed, methods: [POST]}
`, b.srv.URL), nil), b
}

// Raw invalid UTF-8 in a string is refused alike by every route that reads
// a JSON body: never replaced by U+FFFD and passed on.
func TestInvalidUTF8IsRefusedOnEveryRoute(t *testing.T) {
	t.Parallel()
	h, b := inputHarness(t)
	for _, tt := range []struct{ desc, method, path, body string }{
		{desc: "messages", method: "POST", path: "/v2/messages", body: "{\"name\":\"a\xff\",\"message\":\"hello\"}"},
		{desc: "messages, in a member name", method: "POST", path: "/v2/messages", body: "{\"name\":\"a\",\"message\":\"hi\",\"\xc3\":1}"},
		{desc: "accounts", method: "POST", path: "/v2/accounts", body: "{\"name\":\"a\xff\"}"},
		{desc: "model", method: "GET", path: "/v2/settings/model/Account", body: "{\"name\":\"a\xff\"}"},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			rec, env := h.do(t, tt.method, tt.path, tt.body, nil)
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			assert.Equal(t, "JSON_SERIALIZATION_FAILED", responseID(env))
			assert.Contains(t, clientMessage(env), "not valid JSON")
		})
	}
	assert.Empty(t, b.sent(), "nothing reached a backend")

	rec, _ := h.do(t, "POST", "/v2/messages", `{"name":"Zoë","message":"héllo"}`, nil)
	assert.Equal(t, http.StatusOK, rec.Code, "valid UTF-8 passes")
}

// Two members that reverse mapping would turn into one backend field are
// refused, naming both, instead of reaching the backend with the field twice.
func TestMembersMappedToOneFieldAreRefused(t *testing.T) {
	t.Parallel()
	h, b := inputHarness(t)
	for _, tt := range []struct{ desc, method, path, body, detail string }{
		{desc: "exposed and internal name", method: "POST", path: "/v2/accounts",
			body: `{"name":"a","Name":"b"}`, detail: `fields "name" and "Name" are the same field`},
		{desc: "internal name first", method: "POST", path: "/v2/accounts",
			body: `{"Total_Assets__c":1,"totalAssets":2}`, detail: `fields "Total_Assets__c" and "totalAssets" are the same field`},
		{desc: "escaped key", method: "POST", path: "/v2/accounts",
			body: `{"name":"a","N\u0061me":"b"}`, detail: `fields "name" and "Name" are the same field`},
		{desc: "one key twice", method: "POST", path: "/v2/accounts",
			body: `{"name":"a","name":"b"}`, detail: `field "name" given twice`},
		{desc: "in a bulk update", method: "PUT", path: "/v2/accounts",
			body:   `[{"id":"001000000000001AAA","name":"a"},{"id":"001000000000002AAA","name":"a","Name":"b"}]`,
			detail: `fields "name" and "Name" are the same field`},
		{desc: "a record mapped by the model route", method: "GET", path: "/v2/settings/model/Account",
			body: `{"name":"a","Name":"b"}`, detail: `fields "name" and "Name" are the same field`},
		{desc: "messages", method: "POST", path: "/v2/messages",
			body: `{"name":"a","name":"b","message":"m"}`, detail: `member "name" given twice`},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			rec, env := h.do(t, tt.method, tt.path, tt.body, nil)
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assert.Equal(t, "JSON_SERIALIZATION_FAILED", responseID(env))
			assert.Contains(t, clientMessage(env), tt.detail)
		})
	}
	assert.Empty(t, b.sent(), "nothing reached a backend")

	rec, _ := h.do(t, "POST", "/v2/accounts", `{"name":"a","totalAssets":1.10}`, nil)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Equal(t, []string{`{"Name":"a","Total_Assets__c":1.10}`}, b.sent())
}

func clientMessage(env map[string]any) string {
	rc, _ := env["responseCode"].(map[string]any)
	msg, _ := rc["formattedClientMessage"].(string)
	return msg
}

// A record cut short after a key longer than the member loops compare is
// a 400 naming the problem on every route that reads a JSON body, in every
// build: the Go member loop (arm64, -tags purego) once read past the
// body's end there, and Recover answered 500 REST_DISPATCHER_FAILED. CI
// runs this test under -tags purego too (.ci/purego.sh).
func TestTruncatedBodyWithALongKeyIsRefused(t *testing.T) {
	t.Parallel()
	h, b := inputHarness(t)
	long := `[{"a":1,"` + strings.Repeat("b", 37)
	for _, route := range []struct{ method, path string }{
		{"POST", "/v2/messages"}, {"GET", "/v2/settings/model/Account"}, {"PUT", "/v2/accounts"},
	} {
		for _, body := range []string{long + `":`, long + `":"`, long + `":1`, long + strings.Repeat("b", 30) + `":`} {
			t.Run(route.path+" "+body[len(body)-3:], func(t *testing.T) {
				rec, env := h.do(t, route.method, route.path, body, nil)
				assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
				assert.Equal(t, "JSON_SERIALIZATION_FAILED", responseID(env))
			})
		}
	}
	assert.Empty(t, b.sent(), "nothing reached a backend")
}
