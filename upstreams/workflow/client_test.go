package workflow_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/workflow"
)

const taskJSON = `{"id":"8","url":"http://x/runtime/tasks/8","owner":null,"assignee":"kermit","name":"Unassigned Loan","taskDefinitionKey":"UnassignedLoan","variables":[]}`

func TestClientCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		call   func(context.Context, *workflow.Client) ([]byte, error)
		want   expected
		answer canned
		result string
	}{
		{
			desc:   "user",
			call:   func(ctx context.Context, c *workflow.Client) ([]byte, error) { return c.User(ctx, "kermit") },
			want:   expected{method: http.MethodGet, path: "/identity/users/kermit"},
			answer: canned{200, `{"id":"kermit","firstName":"Kermit","lastName":"the Frog","email":"kermit@example.com"}`},
			result: `{"id":"kermit","firstName":"Kermit","lastName":"the Frog","email":"kermit@example.com"}`,
		},
		{
			desc:   "user id is escaped in the path",
			call:   func(ctx context.Context, c *workflow.Client) ([]byte, error) { return c.User(ctx, "miss piggy?") },
			want:   expected{method: http.MethodGet, path: "/identity/users/miss%20piggy%3F"},
			answer: canned{200, `{"id":"miss piggy?"}`},
			result: `{"id":"miss piggy?"}`,
		},
		{
			desc: "process definitions unwrapped",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return data(c.ProcessDefinitions(ctx, workflow.DefinitionQuery{Latest: true}))
			},
			want: expected{method: http.MethodGet, path: "/repository/process-definitions",
				query: url.Values{"latest": {"true"}, "start": {"0"}, "size": {"10"}}},
			answer: canned{200, `{"data":[{"id":"loanProcess:1:4","key":"loanProcess","name":"Loan Process"}],"total":1,"start":0,"sort":"name","order":"asc","size":1}`},
			result: `[{"id":"loanProcess:1:4","key":"loanProcess","name":"Loan Process"}]`,
		},
		{
			desc: "start by id with variables",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return c.StartProcess(ctx, workflow.StartRequest{
					ProcessDefinitionID: "loanProcess:1:4",
					Variables: []workflow.Variable{{Name: "amount", Value: raw(`1200`)}, {Name: "applicant", Value: raw(`"Fozzie"`)},
						{Name: "rate", Value: raw(`1.10`)}, {Name: "due", Type: "date", Value: raw(`"2013-04-17"`)},
						{Name: "big", Value: raw(`12345678901234567890`)}, {Name: "profile", Value: raw(`{"a":[1.0]}`)},
						{Name: "none"}},
				})
			},
			want: expected{method: http.MethodPost, path: "/runtime/process-instances",
				body: `{"processDefinitionId":"loanProcess:1:4","variables":[{"name":"amount","type":"integer","value":1200},` +
					`{"name":"applicant","type":"string","value":"Fozzie"},{"name":"rate","type":"bigDecimal","value":"1.10"},` +
					`{"name":"due","type":"date","value":"2013-04-17"},{"name":"big","type":"bigInteger","value":"12345678901234567890"},` +
					`{"name":"profile","type":"json","value":{"a":[1.0]}},{"name":"none","value":null}]}`},
			answer: canned{201, `{"id":"5","processDefinitionId":"loanProcess:1:4","ended":false}`},
			result: `{"id":"5","processDefinitionId":"loanProcess:1:4","ended":false}`,
		},
		{
			desc: "start by key with business key",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionKey: "loanProcess", BusinessKey: "loan-17"})
			},
			want:   expected{method: http.MethodPost, path: "/runtime/process-instances", body: `{"processDefinitionKey":"loanProcess","businessKey":"loan-17"}`},
			answer: canned{201, `{"id":"5"}`},
			result: `{"id":"5"}`,
		},
		{
			desc: "open tasks by default",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return data(c.Tasks(ctx, workflow.TaskQuery{}))
			},
			want:   expected{method: http.MethodGet, path: "/runtime/tasks", query: url.Values{"start": {"0"}, "size": {"10"}}},
			answer: canned{200, `{"data":[` + taskJSON + `],"total":1,"start":0,"sort":"id","order":"asc","size":1}`},
			result: `[` + taskJSON + `]`,
		},
		{
			desc: "open tasks with every filter",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return data(c.Tasks(ctx, workflow.TaskQuery{Status: "open", Candidate: "gonzo", Assignee: "kermit",
					TaskDefinitionKey: "UnassignedLoan", Description: "a loan", Order: "desc", Size: 25, Start: 50,
					CandidateGroup: "management", Unassigned: true, ProcessInstanceID: "5", ProcessInstanceBusinessKey: "loan-7",
					IncludeProcessVariables: true}))
			},
			want: expected{method: http.MethodGet, path: "/runtime/tasks", query: url.Values{
				"candidateUser": {"gonzo"}, "assignee": {"kermit"}, "taskDefinitionKey": {"UnassignedLoan"},
				"description": {"a loan"}, "sort": {"createTime"}, "order": {"desc"}, "size": {"25"}, "start": {"50"},
				"candidateGroup": {"management"}, "unassigned": {"true"}, "processInstanceId": {"5"},
				"processInstanceBusinessKey": {"loan-7"}, "includeProcessVariables": {"true"}}},
			answer: canned{200, `{"data":[],"total":0,"start":50,"sort":"createTime","order":"desc","size":0}`},
			result: `[]`,
		},
		{
			desc: "closed tasks come from the history with its parameter names",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return data(c.Tasks(ctx, workflow.TaskQuery{Status: "closed", Candidate: "gonzo", Assignee: "kermit",
					TaskDefinitionKey: "SaveForLater", Description: "a loan", Order: "asc", Size: 5,
					CandidateGroup: "management", ProcessInstanceID: "5", ProcessInstanceBusinessKey: "loan-7",
					IncludeProcessVariables: true}))
			},
			want: expected{method: http.MethodGet, path: "/history/historic-task-instances", query: url.Values{
				"finished": {"true"}, "taskInvolvedUser": {"gonzo"}, "taskAssignee": {"kermit"},
				"taskDefinitionKey": {"SaveForLater"}, "taskDescription": {"a loan"}, "sort": {"startTime"},
				"order": {"asc"}, "size": {"5"}, "start": {"0"}, "taskCandidateGroup": {"management"},
				"processInstanceId": {"5"}, "processBusinessKey": {"loan-7"}, "includeProcessVariables": {"true"}}},
			answer: canned{200, `{"data":[{"id":"9","endTime":"2013-04-17T10:17:43.902+0000"}],"total":1,"start":0,"sort":"startTime","order":"asc","size":1}`},
			result: `[{"id":"9","endTime":"2013-04-17T10:17:43.902+0000"}]`,
		},
		{
			desc:   "one task",
			call:   func(ctx context.Context, c *workflow.Client) ([]byte, error) { return c.Task(ctx, "8") },
			want:   expected{method: http.MethodGet, path: "/runtime/tasks/8"},
			answer: canned{200, taskJSON},
			result: taskJSON,
		},
		{
			desc: "assign sends only the given members, null included",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return c.Assign(ctx, "8", []byte(`{"assignee":"kermit","owner":null}`))
			},
			want:   expected{method: http.MethodPut, path: "/runtime/tasks/8", body: `{"assignee":"kermit","owner":null}`},
			answer: canned{200, taskJSON},
			result: taskJSON,
		},
		{
			desc: "claim: 200 with an empty body",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return nil, c.Claim(ctx, "8", "kermit")
			},
			want:   expected{method: http.MethodPost, path: "/runtime/tasks/8", body: `{"action":"claim","assignee":"kermit"}`},
			answer: canned{200, ""},
		},
		{
			desc: "complete puts the disposition first and drops a duplicate",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return nil, c.Complete(ctx, "8", "saveforlater", []workflow.Variable{
					{Name: "disposition", Value: raw(`"complete"`)}, {Name: "note", Value: raw(`"call back"`)},
					{Name: "score", Type: "double", Value: raw(`7.50`)}})
			},
			want: expected{method: http.MethodPost, path: "/runtime/tasks/8",
				body: `{"action":"complete","variables":[{"name":"disposition","type":"string","value":"saveforlater"},` +
					`{"name":"note","type":"string","value":"call back"},{"name":"score","type":"double","value":7.50}]}`},
			answer: canned{200, ""},
		},
		{
			desc: "unclaim",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return nil, c.Unclaim(ctx, "8")
			},
			want:   expected{method: http.MethodPost, path: "/runtime/tasks/8", body: `{"action":"unclaim"}`},
			answer: canned{200, ""},
		},
		{
			desc: "delegate",
			call: func(ctx context.Context, c *workflow.Client) ([]byte, error) {
				return nil, c.Delegate(ctx, "8", "fozzie")
			},
			want:   expected{method: http.MethodPost, path: "/runtime/tasks/8", body: `{"action":"delegate","assignee":"fozzie"}`},
			answer: canned{200, ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := strictEngine(t, tt.want, tt.answer, &calls)
			c := workflow.New(srv.URL+"/flowable-rest/service/", newDoer(), current())
			got, err := tt.call(context.Background(), c)
			require.NoError(t, err)
			assert.EqualValues(t, 1, calls.Load())
			if tt.result == "" {
				assert.Nil(t, got)
				return
			}
			assert.JSONEq(t, tt.result, string(got))
		})
	}
}

// data is a list's data array.
func data(l workflow.List, err error) ([]byte, error) { return l.Data, err }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestClientErrors(t *testing.T) {
	t.Parallel()
	get := expected{method: http.MethodGet, path: "/runtime/tasks/444"}
	tests := []struct {
		desc    string
		call    func(context.Context, *workflow.Client) error
		want    expected
		answer  canned
		kind    upstreams.Kind
		status  int
		message string
	}{
		{
			desc:    "404 in the code's shape",
			want:    get,
			answer:  canned{404, `{"message":"Not found","exception":"Could not find a task with id '444'."}`},
			kind:    upstreams.KindRejected,
			status:  404,
			message: "Not found: Could not find a task with id '444'.",
		},
		{
			desc:    "404 in the documentation's shape",
			want:    get,
			answer:  canned{404, `{"statusCode":404,"errorMessage":"Could not find a task with id '444'."}`},
			kind:    upstreams.KindRejected,
			status:  404,
			message: "Could not find a task with id '444'.",
		},
		{
			desc:    "409 on a task claimed by someone else",
			call:    func(ctx context.Context, c *workflow.Client) error { return c.Claim(ctx, "444", "gonzo") },
			want:    expected{method: http.MethodPost, path: "/runtime/tasks/444", body: `{"action":"claim","assignee":"gonzo"}`},
			answer:  canned{409, `{"message":"Task was already claimed","exception":"Task '444' is already claimed by someone else."}`},
			kind:    upstreams.KindRejected,
			status:  409,
			message: "Task was already claimed: Task '444' is already claimed by someone else.",
		},
		{
			desc: "400 on an unknown definition",
			call: func(ctx context.Context, c *workflow.Client) error {
				_, err := c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionKey: "nope"})
				return err
			},
			want:    expected{method: http.MethodPost, path: "/runtime/process-instances", body: `{"processDefinitionKey":"nope"}`},
			answer:  canned{400, `{"message":"Bad request","exception":"no processes deployed with key 'nope'"}`},
			kind:    upstreams.KindRejected,
			status:  400,
			message: "Bad request: no processes deployed with key 'nope'",
		},
		{
			desc:    "5xx is a failure",
			want:    get,
			answer:  canned{500, `{"message":"Internal server error","exception":null}`},
			kind:    upstreams.KindFailed,
			status:  500,
			message: "Internal server error",
		},
		{
			desc:    "a non-JSON error body keeps the status text",
			want:    get,
			answer:  canned{503, `<html>busy</html>`},
			kind:    upstreams.KindLimited,
			status:  503,
			message: "Service Unavailable",
		},
		{
			desc:    "wrong engine credentials are the gateway's failure",
			want:    get,
			answer:  canned{401, `{"message":"Unauthorized"}`},
			kind:    upstreams.KindCredentials,
			status:  401,
			message: "Unauthorized",
		},
		{
			desc:   "unreadable 2xx",
			want:   get,
			answer: canned{200, `not json`},
			kind:   upstreams.KindInvalid,
		},
		{
			desc: "a list without data",
			call: func(ctx context.Context, c *workflow.Client) error {
				_, err := c.ProcessDefinitions(ctx, workflow.DefinitionQuery{})
				return err
			},
			want:   expected{method: http.MethodGet, path: "/repository/process-definitions", query: url.Values{"start": {"0"}, "size": {"10"}}},
			answer: canned{200, `{"total":0}`},
			kind:   upstreams.KindInvalid,
		},
		{
			desc: "a user with a null id is unknown",
			call: func(ctx context.Context, c *workflow.Client) error {
				_, err := c.User(ctx, "ghost")
				return err
			},
			want:    expected{method: http.MethodGet, path: "/identity/users/ghost"},
			answer:  canned{200, `{"id":null,"firstName":null}`},
			kind:    upstreams.KindRejected,
			status:  404,
			message: "Could not find a user with id 'ghost'.",
		},
		{
			desc: "a user without an id is unknown",
			call: func(ctx context.Context, c *workflow.Client) error {
				_, err := c.User(ctx, "ghost")
				return err
			},
			want:    expected{method: http.MethodGet, path: "/identity/users/ghost"},
			answer:  canned{200, `{}`},
			kind:    upstreams.KindRejected,
			status:  404,
			message: "Could not find a user with id 'ghost'.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := strictEngine(t, tt.want, tt.answer, &calls)
			c := workflow.New(srv.URL+"/flowable-rest/service", newDoer(), current())
			call := tt.call
			if call == nil {
				call = func(ctx context.Context, c *workflow.Client) error {
					_, err := c.Task(ctx, "444")
					return err
				}
			}
			err := call(context.Background(), c)
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "want *upstreams.Error, got %v", err)
			assert.Equal(t, "workflow", ue.Upstream)
			assert.Equal(t, tt.kind, ue.Kind)
			assert.Equal(t, tt.status, ue.Status)
			if tt.message != "" {
				assert.Equal(t, tt.message, ue.Message)
			}
			assert.EqualValues(t, 1, calls.Load())
		})
	}
}
