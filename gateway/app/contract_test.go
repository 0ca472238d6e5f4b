package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// contractClient sends requests through the gateway built from the shipped
// config over the sandbox and holds each request and its answer to the
// version's OpenAPI document, as a client generated from it would expect.
//
// With OPENAPI_PROXIES set (v1=http://127.0.0.1:4011,v2=...), the requests
// of a version go instead to that address, a contract-checking proxy
// (Stoplight Prism in validating-proxy mode, .ci/openapi-clients.sh) in
// front of a running gateway of the shipped config; an answer the proxy
// finds against the document fails the exchange.
type contractClient struct {
	h      http.Handler
	doc    *openapi3.T
	router routers.Router
	// proxy is the address requests go to; "" sends them through h.
	proxy string
	// covered counts the answers checked per operationId.
	covered map[string]int
}

func newContractClient(t *testing.T, env map[string]string, version string) *contractClient {
	t.Helper()
	h := sandboxGatewayWith(t, config.HTTP1Fast, env)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/"+version+"/settings/openapi", nil))
	require.Equal(t, 200, rec.Code, rec.Body.String())
	doc, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	r, err := gorillamux.NewRouter(doc)
	require.NoError(t, err)
	c := &contractClient{h: h, doc: doc, router: r, covered: map[string]int{}}
	if env == nil {
		c.proxy = contractProxies(t)[version]
	}
	return c
}

// contractProxies reads OPENAPI_PROXIES: version=address, comma-separated.
func contractProxies(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(os.Getenv("OPENAPI_PROXIES"), ",") {
		if v, addr, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			out[v] = strings.TrimSuffix(addr, "/")
		}
	}
	if len(out) > 0 {
		t.Logf("through the proxies %v", out)
	}
	return out
}

// exchange is one request of the contract test and what must come of it.
type exchange struct {
	method, path, body, contentType string
	// invalid: the document refuses the request, so the gateway must too
	// (with a 4xx).
	invalid bool
	status  int
}

func (e exchange) request() *http.Request {
	req := httptest.NewRequest(e.method, e.path, strings.NewReader(e.body))
	if e.body != "" {
		req.Header.Set("Content-Type", cmpOr(e.contentType, "application/json"))
	}
	return req
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// exchanged is what came back for one request.
type exchanged struct {
	status int
	header http.Header
	body   []byte
}

// send sends req through the gateway, or to the proxy. A multipart form
// always goes through the gateway: Prism (5.x) keeps one part per name, so
// it refuses every form whose document declares an array of parts, which
// is how multipart/form-data sends several files.
func (c *contractClient) send(t *testing.T, req *http.Request) exchanged {
	t.Helper()
	if c.proxy == "" || strings.HasPrefix(req.Header.Get("Content-Type"), "multipart/") {
		rec := httptest.NewRecorder()
		c.h.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if req.Method == http.MethodHead {
			body = nil // the servers drop it; the recorder keeps what was written
		}
		return exchanged{rec.Code, rec.Header(), body}
	}
	out, err := http.NewRequest(req.Method, c.proxy+req.URL.RequestURI(), req.Body)
	require.NoError(t, err)
	out.Header = req.Header.Clone()
	resp, err := http.DefaultClient.Do(out)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return exchanged{resp.StatusCode, resp.Header, body}
}

// proxyRefused reports whether the proxy itself refused a request as the
// document does (Prism answers a problem document and forwards nothing).
func (c *contractClient) proxyRefused(a exchanged) bool {
	return c.proxy != "" && a.status >= 400 && a.status < 500 &&
		strings.HasPrefix(a.header.Get("Content-Type"), "application/problem+json")
}

// do sends e, checks the request against the document (it must be valid
// unless e.invalid), the status, and the answer against the document;
// it returns the answer's body. A GET is sent again as HEAD, which must
// answer the same status with no body.
func (c *contractClient) do(t *testing.T, e exchange) []byte {
	t.Helper()
	body := c.check(t, e)
	if e.method == http.MethodGet && e.body == "" {
		head := e
		head.method = http.MethodHead
		assert.Empty(t, c.check(t, head), "HEAD %s has a body", e.path)
	}
	return body
}

func (c *contractClient) check(t *testing.T, e exchange) []byte {
	t.Helper()
	what := e.method + " " + e.path
	req := e.request()
	route, params, err := c.router.FindRoute(req)
	require.NoError(t, err, "%s is not in the document", what)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	if reqErr == nil {
		// OpenAPI cannot say "no other parameter", which the document's
		// description states and the gateway applies.
		for name := range req.URL.Query() {
			if route.Operation.Parameters.GetByInAndName(openapi3.ParameterInQuery, name) == nil {
				reqErr = fmt.Errorf("query parameter %q is not in the document", name)
			}
		}
	}
	if e.invalid {
		require.Error(t, reqErr, "%s: the document takes the request", what)
	} else {
		require.NoError(t, reqErr, "%s: the document refuses the request", what)
	}

	a := c.send(t, e.request())
	require.Empty(t, a.header.Get("Sl-Violations"), "%s: the proxy finds the exchange against the document", what)
	if e.invalid && c.proxyRefused(a) {
		c.covered[route.Operation.OperationID]++
		return a.body
	}
	require.Equal(t, e.status, a.status, "%s: %s", what, a.body)
	if e.invalid && e.method != http.MethodHead {
		var env struct{ ResponseCode any }
		require.NoError(t, json.Unmarshal(a.body, &env))
		require.NotNil(t, env.ResponseCode, "%s: the gateway took a request the document refuses", what)
	}
	in.Request = e.request()
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: a.status, Header: a.header,
		Body: io.NopCloser(bytes.NewReader(a.body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), out), "%s: the answer breaks the document: %s", what, a.body)
	c.covered[route.Operation.OperationID]++
	if testing.Verbose() && a.status >= 400 {
		t.Logf("%s -> %d %s", what, a.status, a.body)
	}
	return a.body
}

// options sends OPTIONS to every path of the document, its parameters
// filled from params; each must answer 204 with Allow.
func (c *contractClient) options(t *testing.T, params map[string]string) {
	t.Helper()
	for _, path := range c.doc.Paths.InMatchingOrder() {
		for name, value := range params {
			path = strings.ReplaceAll(path, "{"+name+"}", value)
		}
		c.check(t, exchange{method: http.MethodOptions, path: path, status: http.StatusNoContent})
	}
}

// uncovered lists the document's operations no exchange reached.
func (c *contractClient) uncovered() []string {
	var out []string
	for _, item := range c.doc.Paths.Map() {
		for _, op := range item.Operations() {
			if c.covered[op.OperationID] == 0 {
				out = append(out, op.OperationID)
			}
		}
	}
	sort.Strings(out)
	return out
}

// reason is the formattedClientMessage of an error answer.
func reason(t *testing.T, body []byte) string {
	t.Helper()
	var env struct {
		ResponseCode struct{ FormattedClientMessage string }
	}
	require.NoError(t, json.Unmarshal(body, &env))
	return env.ResponseCode.FormattedClientMessage
}

func resultOf(t *testing.T, body []byte, dst any) {
	t.Helper()
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &env))
	require.NoError(t, json.Unmarshal(env.Result, dst), string(body))
}

func uploadForm(t *testing.T) (string, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	require.NoError(t, w.WriteField("subjectId", "0F9000000000001"))
	for _, name := range []string{"a", "b"} {
		part, err := w.CreateFormFile("file", name+".txt")
		require.NoError(t, err)
		_, err = part.Write([]byte("hello " + name))
		require.NoError(t, err)
		require.NoError(t, w.WriteField("title", strings.ToUpper(name)))
	}
	require.NoError(t, w.Close())
	return b.String(), w.FormDataContentType()
}

// TestEveryOperationKeepsTheDocument sends requests through the router for
// every operation of the shipped config's v2 document, failures included,
// and validates each request and each answer against the document with
// kin-openapi's openapi3filter, in every version; every GET is sent as HEAD
// too, and every path gets OPTIONS. The backends' rejections carry their
// reasons to the client.
func TestEveryOperationKeepsTheDocument(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"v1", "v2", "v3"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			everyOperation(t, newContractClient(t, nil, v), v)
		})
	}
}

// everyOperation sends the exchanges, written for v2, in version v: its
// paths and its names (v1's legacy lowercase ones).
func everyOperation(t *testing.T, c *contractClient, v string) {
	names := strings.NewReplacer()
	if v == "v1" {
		names = strings.NewReplacer("totalAssets", "totalassets", "numberOfEmployees", "numberofemployees")
	}
	run := func(e exchange) []byte {
		e.path = "/" + v + strings.TrimPrefix(e.path, "/v2")
		if e.contentType == "" {
			e.body = names.Replace(e.body)
		}
		return c.do(t, e)
	}

	run(exchange{method: "GET", path: "/v2/settings/endpoints", status: 200})
	run(exchange{method: "GET", path: "/v2/settings/endpoints?x=1", invalid: true, status: 400})
	run(exchange{method: "GET", path: "/v2/settings/openapi", status: 200})
	run(exchange{method: "GET", path: "/v2/settings/model/Account", status: 200})
	var mapped map[string]any
	resultOf(t, run(exchange{method: "POST", path: "/v2/settings/model/Account", body: `{"name":"A","totalAssets":1.10}`, status: 200}), &mapped)
	assert.Equal(t, map[string]any{"Name": "A", "Total_Assets__c": 1.1}, mapped)
	run(exchange{method: "POST", path: "/v2/settings/model/Account", body: `{"colour":"red"}`, status: 400})
	run(exchange{method: "POST", path: "/v2/settings/model/Account", invalid: true, status: 400})
	run(exchange{method: "GET", path: "/v2/settings/model/Nothing", status: 404})

	// accounts
	var created struct{ ID string }
	resultOf(t, run(exchange{method: "POST", path: "/v2/accounts", body: `{"name":"Acme","totalAssets":1.10,"numberOfEmployees":12}`, status: 201}), &created)
	run(exchange{method: "POST", path: "/v2/accounts", body: `{"colour":"red"}`, invalid: true, status: 400})
	run(exchange{method: "POST", path: "/v2/accounts", body: `{"numberOfEmployees":"many"}`, invalid: true, status: 400})
	run(exchange{method: "GET", path: "/v2/accounts", status: 200})
	run(exchange{method: "GET", path: "/v2/accounts?limit=2&offset=0", status: 200})
	run(exchange{method: "GET", path: "/v2/accounts?limit=abc", invalid: true, status: 400})
	run(exchange{method: "GET", path: "/v2/accounts?colour=red", invalid: true, status: 400})
	run(exchange{method: "PUT", path: "/v2/accounts", body: `[{"id":"` + created.ID + `","site":"x"},{"id":"001000000000000AAA","site":"y"}]`, status: 200})
	run(exchange{method: "PUT", path: "/v2/accounts", body: `{"id":"` + created.ID + `"}`, invalid: true, status: 400})
	run(exchange{method: "GET", path: "/v2/accounts/" + created.ID, status: 200})
	assert.Contains(t, reason(t, run(exchange{method: "GET", path: "/v2/accounts/001000000000000AAA", status: 404})),
		"Encountered an error: account 001000000000000AAA not found")
	run(exchange{method: "GET", path: "/v2/accounts/not-an-id", invalid: true, status: 400})
	run(exchange{method: "PUT", path: "/v2/accounts/" + created.ID, body: `{"name":"Acme 2"}`, status: 200})
	run(exchange{method: "DELETE", path: "/v2/accounts/" + created.ID, status: 200})
	run(exchange{method: "DELETE", path: "/v2/accounts", status: 403}) // the admin role only

	// workflow
	run(exchange{method: "GET", path: "/v2/users/kermit", status: 200})
	assert.Contains(t, reason(t, run(exchange{method: "GET", path: "/v2/users/nobody", status: 404})),
		"Could not find a user with id 'nobody'")
	run(exchange{method: "GET", path: "/v2/process-definitions?latest=false&size=1", status: 200})
	run(exchange{method: "GET", path: "/v2/process-definitions?latest=maybe", invalid: true, status: 400})
	run(exchange{method: "POST", path: "/v2/process-instances", status: 201,
		body: `{"processDefinitionKey":"loanProcess","businessKey":"contract-` + v + `","variables":[{"name":"amount","value":1.10}]}`})
	assert.Contains(t, reason(t, run(exchange{method: "POST", path: "/v2/process-instances", body: `{"processDefinitionKey":"noSuchProcess"}`, status: 400})),
		"no processes deployed with key 'noSuchProcess'")
	run(exchange{method: "POST", path: "/v2/process-instances", body: `{"processDefinitionKey":1}`, invalid: true, status: 400})
	var tasks []struct{ ID string }
	resultOf(t, run(exchange{method: "GET", path: "/v2/tasks?processInstanceBusinessKey=contract-" + v + "&includeProcessVariables=true", status: 200}), &tasks)
	require.NotEmpty(t, tasks)
	task := "/v2/tasks/" + tasks[0].ID // a v2 path: run makes it v's
	run(exchange{method: "GET", path: "/v2/tasks?size=0", invalid: true, status: 400})
	run(exchange{method: "GET", path: "/v2/tasks?status=closed&unassigned=true", status: 400})
	run(exchange{method: "GET", path: task, status: 200})
	run(exchange{method: "GET", path: "/v2/tasks/999999", status: 404})
	run(exchange{method: "PUT", path: task, body: `{"owner":"kermit"}`, status: 200})
	run(exchange{method: "POST", path: task + "/claims", body: `{"assignee":"kermit"}`, status: 200})
	assert.Contains(t, reason(t, run(exchange{method: "POST", path: task + "/claims", body: `{"assignee":"gonzo"}`, status: 409})),
		"is already claimed by someone else")
	run(exchange{method: "DELETE", path: task + "/claims", status: 200})
	run(exchange{method: "POST", path: task + "/delegations", body: `{"assignee":"gonzo"}`, status: 200})
	run(exchange{method: "POST", path: task + "/completions", body: `{"disposition":"nope"}`, invalid: true, status: 400})
	run(exchange{method: "POST", path: task + "/completions", body: `{"disposition":"complete"}`, status: 200})

	// data
	run(exchange{method: "GET", path: "/v2/data", status: 200})
	run(exchange{method: "GET", path: "/v2/data/v62.0", status: 200})
	run(exchange{method: "GET", path: "/v2/sobjects", status: 200})
	run(exchange{method: "GET", path: "/v2/sobjects/Account", status: 200})
	run(exchange{method: "GET", path: "/v2/sobjects/Account/describe", status: 200})
	run(exchange{method: "GET", path: "/v2/sobjects/Nothing/describe", status: 404})
	run(exchange{method: "GET", path: "/v2/query?q=SELECT+Id,Name+FROM+Account", status: 200})
	assert.Contains(t, reason(t, run(exchange{method: "GET", path: "/v2/query?q=SELECT+Nme+FROM+Account", status: 400})),
		"INVALID_FIELD: No such column 'Nme' on entity 'Account'.")
	run(exchange{method: "GET", path: "/v2/query", invalid: true, status: 400})
	run(exchange{method: "GET", path: "/v2/query/01gD0000000000AAAA-2000", status: 400})
	run(exchange{method: "GET", path: "/v2/search?q=FIND+%7BAcme%7D", status: 200})
	run(exchange{method: "GET", path: "/v2/contacts", status: 200})
	run(exchange{method: "GET", path: "/v2/contacts?cursor=!", status: 400})

	// files and messages
	form, ct := uploadForm(t)
	run(exchange{method: "POST", path: "/v2/files", body: form, contentType: ct, status: 200})
	run(exchange{method: "POST", path: "/v2/files", body: `{"file":"x"}`, invalid: true, status: 415})
	run(exchange{method: "POST", path: "/v2/messages", body: `{"name":"a","message":"b"}`, status: 200})
	run(exchange{method: "POST", path: "/v2/messages", body: `{"name":"a"}`, invalid: true, status: 400})

	c.options(t, map[string]string{"accountId": created.ID, "taskId": tasks[0].ID, "username": "kermit",
		"objectName": "Account", "apiVersion": "v62.0", "type": "Account", "locator": "01gD0000000000AAAA-2000"})
	assert.Empty(t, c.uncovered(), "operations no request reached")
}

// TestAlways200ErrorsKeepTheDocument: with errors.statusMode always200 the
// document describes errors answered 200, and they match it.
func TestAlways200ErrorsKeepTheDocument(t *testing.T) {
	t.Parallel()
	c := newContractClient(t, map[string]string{"GATEWAY_ERROR_STATUS_MODE": "always200"}, "v2")
	c.do(t, exchange{method: "GET", path: "/v2/accounts?limit=abc", invalid: true, status: 200})
	c.do(t, exchange{method: "GET", path: "/v2/accounts/001000000000000AAA", status: 200})
	c.do(t, exchange{method: "POST", path: "/v2/accounts", body: `{"colour":"red"}`, invalid: true, status: 200})
	c.do(t, exchange{method: "GET", path: "/v2/accounts?limit=1", status: 200})
}
