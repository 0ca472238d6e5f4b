package workflow_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startLoan starts a loan process through the gateway and returns the id of
// its UnassignedLoan task.
func startLoan(t *testing.T, h http.Handler) string {
	t.Helper()
	a := do(t, h, request{method: http.MethodPost, target: "/v1/process-instances",
		body: `{"processDefinitionKey":"loanProcess","businessKey":"loan-1","variables":[{"name":"amount","value":1000}]}`})
	require.Equal(t, http.StatusCreated, a.Status, "%s", a.Raw)
	instance := field(t, a.Result, "id")
	a = do(t, h, request{method: http.MethodGet, target: "/v1/tasks?taskDefinitionKey=UnassignedLoan&processInstanceId=" + instance})
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	var tasks []struct {
		ID                string `json:"id"`
		ProcessInstanceID string `json:"processInstanceId"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &tasks))
	for _, task := range tasks {
		if task.ProcessInstanceID == instance {
			return task.ID
		}
	}
	require.FailNow(t, "no task for the started instance", "%s", a.Raw)
	return ""
}

// TestRoutesAgainstSandbox sends every route through the router to the
// reference engine over HTTP. A target's {task} is the UnassignedLoan task
// of a loan started first when the case asks for one.
func TestRoutesAgainstSandbox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		loan     bool
		claimAs  string
		req      request
		status   int
		code     string
		contains []string
		result   string
		after    *request
		afterHas string
		// afterLacks turns afterHas into what the answer after must not hold.
		afterLacks bool
		// excludes are texts the answer must not hold.
		excludes []string
	}{
		{desc: "user", req: request{method: "GET", target: "/v1/users/kermit"}, status: 200,
			contains: []string{`"id":"kermit"`, `"firstName":"Kermit"`}},
		{desc: "unknown user is 404", req: request{method: "GET", target: "/v2/users/ghost"}, status: 404,
			code: "SOBJECT_OPERATION_FAILED"},
		{desc: "process definitions: the latest versions", req: request{method: "GET", target: "/v1/process-definitions"}, status: 200,
			contains: []string{`"id":"loanProcess:2:3"`, `"key":"loanProcess"`}, excludes: []string{`loanProcess:1:4`, "127.0.0.1", "deploymentUrl", "resource\""}},
		{desc: "process definitions: every version", req: request{method: "GET", target: "/v1/process-definitions?latest=false"}, status: 200,
			contains: []string{`"id":"loanProcess:1:4"`, `"id":"loanProcess:2:3"`}},
		{desc: "unclaim", loan: true, claimAs: "kermit",
			req:    request{method: "DELETE", target: "/v1/tasks/{task}/claims"},
			status: 200, result: `""`,
			after: &request{method: "GET", target: "/v1/tasks/{task}"}, afterHas: `"assignee"`, afterLacks: true},
		{desc: "delegate", loan: true, claimAs: "kermit",
			req:    request{method: "POST", target: "/v1/tasks/{task}/delegations", body: `{"assignee":"fozzie"}`},
			status: 200, result: `""`,
			after: &request{method: "GET", target: "/v1/tasks/{task}"}, afterHas: `"owner":"kermit"`},
		{desc: "a task links to the gateway, never to the engine", loan: true,
			req:    request{method: "GET", target: "/v2/tasks/{task}"},
			status: 200, contains: []string{`"url":"/v2/tasks/{task}"`}, excludes: []string{"127.0.0.1", "Url"}},
		{desc: "a user links to the gateway", req: request{method: "GET", target: "/v2/users/kermit"}, status: 200,
			contains: []string{`"url":"/v2/users/kermit"`}, excludes: []string{"127.0.0.1", "pictureUrl"}},
		{desc: "start by id", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionId":"loanProcess:1:4","variables":[{"name":"amount","value":12.5}]}`},
			status: 201, contains: []string{`"processDefinitionId":"loanProcess:1:4"`, `"startUserId":"admin"`}},
		{desc: "start of an unknown definition keeps the engine's 400",
			req:    request{method: "POST", target: "/v1/process-instances", body: `{"processDefinitionKey":"nope"}`},
			status: 400, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "start with both id and key", req: request{method: "POST", target: "/v1/process-instances",
			body: `{"processDefinitionId":"loanProcess:1:4","processDefinitionKey":"loanProcess"}`},
			status: 400, code: "PARAMETER_INVALID", contains: []string{"processDefinitionKey"}},
		{desc: "open tasks of a candidate", loan: true,
			req:    request{method: "GET", target: "/v1/tasks?status=open&candidate=gonzo&taskDefinitionKey=UnassignedLoan&order=desc&size=5"},
			status: 200, contains: []string{`"taskDefinitionKey":"UnassignedLoan"`}},
		{desc: "closed tasks, none yet", loan: true, req: request{method: "GET", target: "/v1/tasks?status=closed"},
			status: 200, result: `[]`},
		{desc: "bad status names the parameter", req: request{method: "GET", target: "/v1/tasks?status=done"},
			status: 400, code: "PARAMETER_INVALID", contains: []string{"status"}},
		{desc: "one task", loan: true, req: request{method: "GET", target: "/v1/tasks/{task}"}, status: 200,
			contains: []string{`"name":"Unassigned Loan"`}},
		{desc: "unknown task is 404", req: request{method: "GET", target: "/v1/tasks/999999"}, status: 404,
			code: "SOBJECT_OPERATION_FAILED"},
		{desc: "assign", loan: true,
			req:    request{method: "PUT", target: "/v1/tasks/{task}", body: `{"assignee":"fozzie","owner":"admin"}`},
			status: 200, contains: []string{`"assignee":"fozzie"`, `"owner":"admin"`}},
		{desc: "claim defaults to the caller", loan: true,
			req:    request{method: "POST", target: "/v1/tasks/{task}/claims", user: "gonzo"},
			status: 200, result: `""`,
			after: &request{method: "GET", target: "/v1/tasks/{task}"}, afterHas: `"assignee":"gonzo"`},
		{desc: "claim for a named assignee", loan: true,
			req:    request{method: "POST", target: "/v1/tasks/{task}/claims", body: `{"assignee":"fozzie"}`},
			status: 200, result: `""`,
			after: &request{method: "GET", target: "/v1/tasks/{task}"}, afterHas: `"assignee":"fozzie"`},
		{desc: "claim of a task held by another is 409", loan: true, claimAs: "kermit",
			req:    request{method: "POST", target: "/v1/tasks/{task}/claims", user: "gonzo"},
			status: 409, code: "SOBJECT_OPERATION_FAILED"},
		{desc: "complete", loan: true, claimAs: "kermit",
			req:    request{method: "POST", target: "/v1/tasks/{task}/completions", body: `{"disposition":"complete"}`},
			status: 200, result: `""`,
			after: &request{method: "GET", target: "/v1/tasks?status=closed"}, afterHas: `"taskDefinitionKey":"UnassignedLoan"`},
		{desc: "complete with a bad disposition", loan: true,
			req:    request{method: "POST", target: "/v1/tasks/{task}/completions", body: `{"disposition":"later"}`},
			status: 400, code: "PARAMETER_INVALID", contains: []string{"disposition"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			h := newGateway(t, newSandbox(t))
			task := ""
			if tt.loan {
				task = startLoan(t, h)
			}
			if tt.claimAs != "" {
				a := do(t, h, request{method: "POST", target: "/v1/tasks/" + task + "/claims", user: tt.claimAs})
				require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
			}
			req := tt.req
			req.target = strings.ReplaceAll(req.target, "{task}", task)
			a := do(t, h, req)
			assert.Equal(t, tt.status, a.Status, "%s", a.Raw)
			assert.Equal(t, tt.code, a.ResponseCode.ID, "%s", a.Raw)
			if tt.code == "" {
				assert.Equal(t, defaultOr(req.user), a.UserID)
			}
			text := string(a.Result) + a.ResponseCode.FormattedClientMessage
			for _, want := range tt.contains {
				assert.Contains(t, text, strings.ReplaceAll(want, "{task}", task))
			}
			for _, unwanted := range tt.excludes {
				assert.NotContains(t, text, unwanted)
			}
			if tt.result != "" {
				assert.JSONEq(t, tt.result, string(a.Result))
			}
			if tt.after != nil {
				next := *tt.after
				next.target = strings.ReplaceAll(next.target, "{task}", task)
				b := do(t, h, next)
				require.Equal(t, http.StatusOK, b.Status, "%s", b.Raw)
				if tt.afterLacks {
					assert.NotContains(t, string(b.Result), tt.afterHas)
				} else {
					assert.Contains(t, string(b.Result), tt.afterHas)
				}
			}
		})
	}
}

func defaultOr(user string) string {
	if user == "" {
		return defaultUser
	}
	return user
}
