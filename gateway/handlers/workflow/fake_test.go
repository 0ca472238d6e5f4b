package workflow_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstreamCall is what the engine must receive: body "" means no body.
type upstreamCall struct {
	method, path string
	query        url.Values
	body         string
}

// canned is the engine's answer.
type canned struct {
	status int
	body   string
}

// strictEngine records every request and answers each with one canned
// answer; the test then compares what it got with what it expected.
type strictEngine struct {
	answer canned
	mu     sync.Mutex
	got    []*http.Request
	bodies []string
}

func newStrictEngine(t *testing.T, answer canned) (*strictEngine, string) {
	t.Helper()
	e := &strictEngine{answer: answer}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return e, srv.URL + "/flowable-rest/service"
}

func (e *strictEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	e.got = append(e.got, r)
	e.bodies = append(e.bodies, string(body))
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.answer.status)
	_, _ = io.WriteString(w, e.answer.body)
}

// check asserts that the engine got exactly want, or nothing when want is nil.
func (e *strictEngine) check(t *testing.T, want *upstreamCall) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if want == nil {
		assert.Empty(t, e.got, "nothing may reach the engine")
		return
	}
	require.Len(t, e.got, 1)
	r := e.got[0]
	assert.Equal(t, want.method, r.Method)
	assert.Equal(t, "/flowable-rest/service"+want.path, r.URL.EscapedPath())
	query := want.query
	if query == nil {
		query = url.Values{}
	}
	assert.Equal(t, query, r.URL.Query())
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(engineUser+":"+enginePassword))
	assert.Equal(t, basic, r.Header.Get("Authorization"))
	assert.Equal(t, "application/json", r.Header.Get("Accept"))
	if want.body == "" {
		assert.Empty(t, e.bodies[0])
		return
	}
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.JSONEq(t, want.body, e.bodies[0])
}

const fakeTask = `{"id":"8","assignee":"kermit","owner":null,"name":"Unassigned Loan","taskDefinitionKey":"UnassignedLoan"}`

// engineTask is a task as the engine writes it, with its links to the
// engine's host and a serialisable variable's valueUrl.
const engineTask = `{"id":"8","url":"http://engine.internal:8080/flowable-rest/service/runtime/tasks/8","assignee":"kermit",` +
	`"processDefinitionId":"loanProcess:1:4","processDefinitionUrl":"http://engine.internal:8080/flowable-rest/service/repository/process-definitions/loanProcess:1:4",` +
	`"executionUrl":"http://engine.internal:8080/flowable-rest/service/runtime/executions/6","parentTaskUrl":null,` +
	`"variables":[{"name":"amount","type":"bigDecimal","value":"1.10","scope":"global"},` +
	`{"name":"profile","type":"serializable","value":null,"valueUrl":"http://engine.internal:8080/flowable-rest/service/runtime/tasks/8/variables/profile/data","scope":"global"}]}`

// TestUpstreamRequests checks, for every route, the exact request the
// engine receives and what the client gets back; refused input must not
// reach the engine at all.
func TestUpstreamRequests(t *testing.T) {
	t.Parallel()
	ok := canned{200, ""}
	tests := []struct {
		desc   string
		req    request
		answer canned
		want   *upstreamCall
		status int
		code   string
		result string
		page   string // the envelope's page member; checked when set
		msg    string
	}{
		{desc: "user", req: request{method: "GET", target: "/v1/users/kermit"},
			answer: canned{200, `{"id":"kermit","firstName":"Kermit","email":null}`},
			want:   &upstreamCall{method: "GET", path: "/identity/users/kermit"},
			status: 200, result: `{"id":"kermit","firstName":"Kermit"}`},
		{desc: "user name escaped on the way", req: request{method: "GET", target: "/v1/users/miss%20piggy"},
			answer: canned{200, `{"id":"miss piggy"}`},
			want:   &upstreamCall{method: "GET", path: "/identity/users/miss%20piggy"},
			status: 200, result: `{"id":"miss piggy"}`},
		{desc: "a slash in a user name never reaches the engine", req: request{method: "GET", target: "/v1/users/a%2F..%2Fb"},
			status: 400, code: "PARAMETER_INVALID", msg: "username"},
		{desc: "unknown user", req: request{method: "GET", target: "/v1/users/ghost"},
			answer: canned{404, `{"statusCode":404,"errorMessage":"Could not find a user with id 'ghost'."}`},
			want:   &upstreamCall{method: "GET", path: "/identity/users/ghost"},
			status: 404, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "process definitions: the latest versions, paged, without the engine's links",
			req: request{method: "GET", target: "/v1/process-definitions"},
			answer: canned{200, `{"data":[{"id":"loanProcess:2:3","url":"http://engine.internal:8080/flowable-rest/service/repository/process-definitions/loanProcess:2:3",` +
				`"key":"loanProcess","version":2,"deploymentUrl":"http://engine.internal:8080/flowable-rest/service/repository/deployments/2",` +
				`"resource":"http://engine.internal:8080/x.bpmn20.xml","diagramResource":null}],"total":1,"start":0,"sort":"name","order":"asc","size":1}`},
			want: &upstreamCall{method: "GET", path: "/repository/process-definitions",
				query: url.Values{"latest": {"true"}, "start": {"0"}, "size": {"10"}}},
			status: 200, result: `[{"id":"loanProcess:2:3","key":"loanProcess","version":2}]`,
			page: `{"start":0,"size":1,"total":1}`},
		{desc: "process definitions: every version of a key, a later page",
			req:    request{method: "GET", target: "/v1/process-definitions?latest=false&key=loanProcess&start=1&size=1"},
			answer: canned{200, `{"data":[{"id":"loanProcess:2:3"}],"total":3,"start":1,"sort":"name","order":"asc","size":1}`},
			want: &upstreamCall{method: "GET", path: "/repository/process-definitions",
				query: url.Values{"key": {"loanProcess"}, "start": {"1"}, "size": {"1"}}},
			status: 200, result: `[{"id":"loanProcess:2:3"}]`,
			page: `{"start":1,"size":1,"total":3,"next":"/v1/process-definitions?key=loanProcess&latest=false&size=1&start=2"}`},
		{desc: "process definitions: an unknown parameter", req: request{method: "GET", target: "/v1/process-definitions?version=2"},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter version"},
		{desc: "start by key: every variable typed, numbers kept exact", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionKey":"loanProcess","businessKey":"loan-7","variables":[{"name":"amount","value":12345678901234567890},` +
				`{"name":"ok","value":true},{"name":"who","value":{"a":[1,"x"]}},{"name":"rate","value":1.10},` +
				`{"name":"due","type":"date","value":"2013-04-17T10:17:43.902Z"},{"name":"n","type":"long","value":7}]}`},
			answer: canned{201, `{"id":"5","url":"http://engine.internal/runtime/process-instances/5","processDefinitionId":"loanProcess:1:4",` +
				`"processDefinitionUrl":"http://engine.internal/repository/process-definitions/loanProcess:1:4"}`},
			want: &upstreamCall{method: "POST", path: "/runtime/process-instances",
				body: `{"processDefinitionKey":"loanProcess","businessKey":"loan-7","variables":[` +
					`{"name":"amount","type":"bigInteger","value":"12345678901234567890"},{"name":"ok","type":"boolean","value":true},` +
					`{"name":"who","type":"json","value":{"a":[1,"x"]}},{"name":"rate","type":"bigDecimal","value":"1.10"},` +
					`{"name":"due","type":"date","value":"2013-04-17T10:17:43.902Z"},{"name":"n","type":"long","value":7}]}`},
			status: 201, result: `{"id":"5","processDefinitionId":"loanProcess:1:4"}`},
		{desc: "start with a value its type does not take", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"amount","type":"integer","value":"12"}]}`},
			status: 400, code: "PARAMETER_INVALID", msg: `Invalid parameter variable "amount": must be an integer`},
		{desc: "start with an unknown type", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"blob","type":"serializable","value":"rO0AB"}]}`},
			status: 400, code: "PARAMETER_INVALID", msg: `Invalid parameter variable "blob": unknown variable type "serializable"`},
		{desc: "start by id", req: request{method: "POST", target: "/v2/process-instances", body: `{"processDefinitionId":"loanProcess:1:4"}`},
			answer: canned{201, `{"id":"6"}`},
			want:   &upstreamCall{method: "POST", path: "/runtime/process-instances", body: `{"processDefinitionId":"loanProcess:1:4"}`},
			status: 201, result: `{"id":"6"}`},
		{desc: "start with neither id nor key", req: request{method: "POST", target: "/v1/process-instances", body: `{"businessKey":"x"}`},
			status: 400, code: "PARAMETER_INVALID", msg: "processDefinitionId"},
		{desc: "start with both", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionId":"a:1:1","processDefinitionKey":"a"}`},
			status: 400, code: "PARAMETER_INVALID", msg: "processDefinitionKey"},
		{desc: "start with an unknown member", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionKey":"loanProcess","tenantId":"other"}`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: `unknown member "tenantId"`},
		{desc: "start with an unknown member of a variable", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"a","value":1,"scope":"local"}]}`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: `unknown member "scope"`},
		{desc: "start with a wrongly typed member", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionKey":7}`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: `member "processDefinitionKey" must be a string`},
		{desc: "start without a body", req: request{method: "POST", target: "/v1/process-instances"},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: "a JSON body is required"},
		{desc: "start with an array", req: request{method: "POST", target: "/v1/process-instances", body: `[]`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: "must be a JSON object"},
		{desc: "start with broken JSON", req: request{method: "POST", target: "/v1/process-instances", body: `{"processDefinitionKey":`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: "not valid JSON"},
		{desc: "unknown definition keeps the engine's 400", req: request{method: "POST", target: "/v1/process-instances", body: `{"processDefinitionKey":"nope"}`},
			answer: canned{400, `{"message":"Bad request","exception":"no processes deployed with key 'nope'"}`},
			want:   &upstreamCall{method: "POST", path: "/runtime/process-instances", body: `{"processDefinitionKey":"nope"}`},
			status: 400, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "open tasks translate candidate", req: request{method: "GET",
			target: "/v1/tasks?status=open&candidate=gonzo&assignee=kermit&taskDefinitionKey=UnassignedLoan&description=a+loan&size=25&order=desc"},
			answer: canned{200, `{"data":[` + fakeTask + `],"total":1,"start":0,"size":1}`},
			want: &upstreamCall{method: "GET", path: "/runtime/tasks", query: url.Values{"candidateUser": {"gonzo"},
				"assignee": {"kermit"}, "taskDefinitionKey": {"UnassignedLoan"}, "description": {"a loan"},
				"size": {"25"}, "order": {"desc"}, "sort": {"createTime"}, "start": {"0"}}},
			status: 200, result: `[{"id":"8","assignee":"kermit","name":"Unassigned Loan","taskDefinitionKey":"UnassignedLoan"}]`,
			page: `{"start":0,"size":1,"total":1}`},
		{desc: "the filters users need, under the engine's names", req: request{method: "GET",
			target: "/v2/tasks?candidateGroup=management&unassigned=true&processInstanceId=5&processInstanceBusinessKey=loan-7&includeProcessVariables=true"},
			answer: canned{200, `{"data":[],"total":0,"start":0,"size":0}`},
			want: &upstreamCall{method: "GET", path: "/runtime/tasks", query: url.Values{"candidateGroup": {"management"},
				"unassigned": {"true"}, "processInstanceId": {"5"}, "processInstanceBusinessKey": {"loan-7"},
				"includeProcessVariables": {"true"}, "start": {"0"}, "size": {"10"}}},
			status: 200, result: `[]`, page: `{"start":0,"size":0,"total":0}`},
		{desc: "unassigned=false is no filter, not sent (the engine reads its presence)", req: request{method: "GET", target: "/v2/tasks?unassigned=false"},
			answer: canned{200, `{"data":[],"total":0,"start":0,"size":0}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks", query: url.Values{"start": {"0"}, "size": {"10"}}},
			status: 200, result: `[]`},
		{desc: "the first page says more exist and links the next",
			req:    request{method: "GET", target: "/v2/tasks?assignee=kermit"},
			answer: canned{200, `{"data":[` + strings.TrimSuffix(strings.Repeat(fakeTask+",", 10), ",") + `],"total":23,"start":0,"sort":"id","order":"asc","size":10}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks", query: url.Values{"assignee": {"kermit"}, "start": {"0"}, "size": {"10"}}},
			status: 200, page: `{"start":0,"size":10,"total":23,"next":"/v2/tasks?assignee=kermit&size=10&start=10"}`},
		{desc: "the last page links nothing",
			req:    request{method: "GET", target: "/v2/tasks?assignee=kermit&start=20&size=10"},
			answer: canned{200, `{"data":[` + fakeTask + `,` + fakeTask + `,` + fakeTask + `],"total":23,"start":20,"sort":"id","order":"asc","size":3}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks", query: url.Values{"assignee": {"kermit"}, "start": {"20"}, "size": {"10"}}},
			status: 200, page: `{"start":20,"size":3,"total":23}`},
		{desc: "a list envelope that does not add up is the engine's failure",
			req:    request{method: "GET", target: "/v2/tasks"},
			answer: canned{200, `{"data":[` + fakeTask + `],"total":1,"start":0,"size":2}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks", query: url.Values{"start": {"0"}, "size": {"10"}}},
			status: 502, code: "CALLOUT_FAILED"},
		{desc: "closed tasks from the history", req: request{method: "GET",
			target: "/v1/tasks?status=closed&assignee=kermit&candidateGroup=management&processInstanceBusinessKey=loan-7&includeProcessVariables=true"},
			answer: canned{200, `{"data":[{"id":"9","url":"http://engine.internal/history/historic-task-instances/9","processInstanceUrl":"http://engine.internal/history/historic-process-instances/5"}],"total":1,"start":0,"size":1}`},
			want: &upstreamCall{method: "GET", path: "/history/historic-task-instances",
				query: url.Values{"finished": {"true"}, "taskAssignee": {"kermit"}, "taskCandidateGroup": {"management"},
					"processBusinessKey": {"loan-7"}, "includeProcessVariables": {"true"}, "start": {"0"}, "size": {"10"}}},
			status: 200, result: `[{"id":"9"}]`},
		{desc: "unassigned has no history filter", req: request{method: "GET", target: "/v1/tasks?status=closed&unassigned=true"},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter unassigned"},
		{desc: "a malformed parameter is refused, not dropped", req: request{method: "GET", target: "/v1/tasks?assignee=%zz"},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter assignee"},
		{desc: "start not a number", req: request{method: "GET", target: "/v1/tasks?start=ten"},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter start"},
		{desc: "size out of range", req: request{method: "GET", target: "/v1/tasks?size=0"},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter size"},
		{desc: "order not asc or desc", req: request{method: "GET", target: "/v1/tasks?order=up"},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter order"},
		{desc: "an unknown parameter is refused, not ignored", req: request{method: "GET", target: "/v1/tasks?candidateUser=gonzo"},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter candidateUser"},
		{desc: "the engine refusing a query", req: request{method: "GET", target: "/v1/tasks"},
			answer: canned{400, `{"message":"Bad request","exception":"Value for param 'sort' is not valid"}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks", query: url.Values{"start": {"0"}, "size": {"10"}}},
			status: 400, code: "QUERY_OPERATION_FAILED"},
		{desc: "one task, its links the gateway's", req: request{method: "GET", target: "/v2/tasks/8"}, answer: canned{200, engineTask},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks/8"},
			status: 200, result: `{"id":"8","url":"/v2/tasks/8","assignee":"kermit","processDefinitionId":"loanProcess:1:4",` +
				`"variables":[{"name":"amount","type":"bigDecimal","value":"1.10","scope":"global"},` +
				`{"name":"profile","type":"serializable","scope":"global"}]}`},
		{desc: "a dot-segment task id never reaches the engine", req: request{method: "GET", target: "/v1/tasks/%2E%2E"},
			status: 400, code: "PARAMETER_INVALID", msg: "taskId"},
		{desc: "assign sends only the members given, null kept", req: request{method: "PUT", target: "/v1/tasks/8",
			body: `{"owner":null,"assignee":"fozzie"}`}, answer: canned{200, fakeTask},
			want:   &upstreamCall{method: "PUT", path: "/runtime/tasks/8", body: `{"assignee":"fozzie","owner":null}`},
			status: 200},
		{desc: "assign of the owner only", req: request{method: "PUT", target: "/v1/tasks/8", body: `{"owner":"admin"}`},
			answer: canned{200, fakeTask},
			want:   &upstreamCall{method: "PUT", path: "/runtime/tasks/8", body: `{"owner":"admin"}`}, status: 200},
		{desc: "assign of nothing", req: request{method: "PUT", target: "/v1/tasks/8", body: `{}`},
			status: 400, code: "PARAMETER_INVALID", msg: "assignee"},
		{desc: "assign of another member", req: request{method: "PUT", target: "/v1/tasks/8", body: `{"assignee":"a","priority":1}`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: `unknown member "priority"`},
		{desc: "assign of a number", req: request{method: "PUT", target: "/v1/tasks/8", body: `{"assignee":5}`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: `member "assignee" must be a string or null`},
		{desc: "assign of an empty name", req: request{method: "PUT", target: "/v1/tasks/8", body: `{"assignee":""}`},
			status: 400, code: "PARAMETER_INVALID", msg: "assignee"},
		{desc: "claim without a body is the caller's", req: request{method: "POST", target: "/v1/tasks/8/claims", user: "gonzo"},
			answer: ok, want: &upstreamCall{method: "POST", path: "/runtime/tasks/8", body: `{"action":"claim","assignee":"gonzo"}`},
			status: 200, result: `""`},
		{desc: "claim with an empty object is the caller's", req: request{method: "POST", target: "/v1/tasks/8/claims", body: ` {} `},
			answer: ok, want: &upstreamCall{method: "POST", path: "/runtime/tasks/8", body: `{"action":"claim","assignee":"kermit"}`},
			status: 200, result: `""`},
		{desc: "claim for a named assignee", req: request{method: "POST", target: "/v1/tasks/8/claims", body: `{"assignee":"fozzie"}`},
			answer: ok, want: &upstreamCall{method: "POST", path: "/runtime/tasks/8", body: `{"action":"claim","assignee":"fozzie"}`},
			status: 200, result: `""`},
		{desc: "claim held by another", req: request{method: "POST", target: "/v1/tasks/8/claims"},
			answer: canned{409, `{"message":"Task was already claimed","exception":"Task '8' is already claimed by someone else."}`},
			want:   &upstreamCall{method: "POST", path: "/runtime/tasks/8", body: `{"action":"claim","assignee":"kermit"}`},
			status: 409, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "claim with another member", req: request{method: "POST", target: "/v1/tasks/8/claims", body: `{"action":"complete"}`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: `unknown member "action"`},
		{desc: "complete puts the disposition first", req: request{method: "POST", target: "/v1/tasks/8/completions",
			body: `{"disposition":"saveforlater","variables":[{"name":"note","value":"payslip"},{"name":"score","type":"double","value":7.50}]}`},
			answer: ok, want: &upstreamCall{method: "POST", path: "/runtime/tasks/8",
				body: `{"action":"complete","variables":[{"name":"disposition","type":"string","value":"saveforlater"},` +
					`{"name":"note","type":"string","value":"payslip"},{"name":"score","type":"double","value":7.50}]}`},
			status: 200, result: `""`},
		{desc: "complete with a date that is not one", req: request{method: "POST", target: "/v1/tasks/8/completions",
			body: `{"disposition":"complete","variables":[{"name":"due","type":"date","value":"tomorrow"}]}`},
			status: 400, code: "PARAMETER_INVALID", msg: `Invalid parameter variable "due": must be a date`},
		{desc: "unclaim", req: request{method: "DELETE", target: "/v1/tasks/8/claims"},
			answer: ok, want: &upstreamCall{method: "POST", path: "/runtime/tasks/8", body: `{"action":"unclaim"}`},
			status: 200, result: `""`},
		{desc: "delegate", req: request{method: "POST", target: "/v1/tasks/8/delegations", body: `{"assignee":"fozzie"}`},
			answer: ok, want: &upstreamCall{method: "POST", path: "/runtime/tasks/8", body: `{"action":"delegate","assignee":"fozzie"}`},
			status: 200, result: `""`},
		{desc: "delegate to nobody", req: request{method: "POST", target: "/v1/tasks/8/delegations", body: `{}`},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter assignee"},
		{desc: "delegate with another member", req: request{method: "POST", target: "/v1/tasks/8/delegations", body: `{"assignee":"a","owner":"b"}`},
			status: 400, code: "JSON_SERIALIZATION_FAILED", msg: `unknown member "owner"`},
		{desc: "the engine's own refusal keeps its 403 and says why", req: request{method: "GET", target: "/v1/tasks/8"},
			answer: canned{403, `{"message":"Forbidden","exception":"Task 8 is not accessible to the caller's tenant."}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks/8"},
			status: 403, code: "SOBJECT_OPERATION_FAILED", msg: "Task 8 is not accessible to the caller's tenant."},
		{desc: "Spring Security refusing the gateway's credentials is the gateway's 502", req: request{method: "GET", target: "/v1/tasks/8"},
			answer: canned{403, `{"timestamp":"2024-05-02T09:13:11.532+00:00","status":403,"error":"Forbidden","path":"/flowable-rest/service/runtime/tasks/8"}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks/8"},
			status: 502, code: "CALLOUT_FAILED"},
		{desc: "complete without a disposition", req: request{method: "POST", target: "/v1/tasks/8/completions", body: `{"variables":[]}`},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter disposition"},
		{desc: "complete with a numeric disposition", req: request{method: "POST", target: "/v1/tasks/8/completions", body: `{"disposition":1}`},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter disposition"},
		{desc: "complete with a variable without a name", req: request{method: "POST", target: "/v1/tasks/8/completions",
			body: `{"disposition":"complete","variables":[{"value":1}]}`},
			status: 400, code: "PARAMETER_INVALID", msg: "Invalid parameter variables"},
		{desc: "complete of an unknown task", req: request{method: "POST", target: "/v1/tasks/444/completions", body: `{"disposition":"complete"}`},
			answer: canned{404, `{"message":"Not found","exception":"Could not find a task with id '444'."}`},
			want: &upstreamCall{method: "POST", path: "/runtime/tasks/444",
				body: `{"action":"complete","variables":[{"name":"disposition","type":"string","value":"complete"}]}`},
			status: 404, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "an engine failure is the gateway's 502", req: request{method: "GET", target: "/v1/tasks/8"},
			answer: canned{500, `{"message":"Internal server error"}`},
			want:   &upstreamCall{method: "GET", path: "/runtime/tasks/8"},
			status: 502, code: "CALLOUT_FAILED"},
		{desc: "wrong engine credentials are the gateway's 502", req: request{method: "GET", target: "/v1/process-definitions"},
			answer: canned{401, `{"message":"Unauthorized"}`},
			want: &upstreamCall{method: "GET", path: "/repository/process-definitions",
				query: url.Values{"latest": {"true"}, "start": {"0"}, "size": {"10"}}},
			status: 502, code: "CALLOUT_FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			answer := tt.answer
			if answer.status == 0 {
				answer = canned{http.StatusTeapot, `{"message":"not expected"}`}
			}
			eng, base := newStrictEngine(t, answer)
			a := do(t, newGateway(t, base), tt.req)
			eng.check(t, tt.want)
			assert.Equal(t, tt.status, a.Status, "%s", a.Raw)
			assert.Equal(t, tt.code, a.ResponseCode.ID, "%s", a.Raw)
			if tt.result != "" {
				assert.JSONEq(t, tt.result, string(a.Result))
			}
			if tt.page != "" {
				assert.JSONEq(t, tt.page, string(a.Page), "%s", a.Raw)
			}
			if tt.msg != "" {
				assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.msg)
			}
		})
	}
}
