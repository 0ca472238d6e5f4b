package workflow_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTaskActions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		// before are calls made first on the fresh task; each must succeed.
		before   []string
		method   string
		body     string
		status   int
		wantBody string
		assignee any
		owner    any
		// delegation is the delegationState after; nil when none.
		delegation any
		wantEmpty  bool
	}{
		{desc: "claim", method: http.MethodPost, body: `{"action":"claim","assignee":"kermit"}`, status: 200, wantEmpty: true, assignee: "kermit"},
		{desc: "claim again by the holder is a no-op", before: []string{`{"action":"claim","assignee":"kermit"}`},
			method: http.MethodPost, body: `{"action":"claim","assignee":"kermit"}`, status: 200, wantEmpty: true, assignee: "kermit"},
		{desc: "claim held by another is 409", before: []string{`{"action":"claim","assignee":"kermit"}`},
			method: http.MethodPost, body: `{"action":"claim","assignee":"gonzo"}`, status: 409,
			wantBody: `{"message":"Task was already claimed","exception":"Task '%s' is already claimed by someone else."}`, assignee: "kermit"},
		{desc: "claim with null releases", before: []string{`{"action":"claim","assignee":"kermit"}`},
			method: http.MethodPost, body: `{"action":"claim","assignee":null}`, status: 200, wantEmpty: true, assignee: nil},
		{desc: "unknown action is 400", method: http.MethodPost, body: `{"action":"fly"}`, status: 400,
			wantBody: `{"message":"Bad request","exception":"Invalid action: 'fly'."}`, assignee: nil},
		{desc: "unclaim releases", before: []string{`{"action":"claim","assignee":"kermit"}`},
			method: http.MethodPost, body: `{"action":"unclaim"}`, status: 200, wantEmpty: true, assignee: nil},
		{desc: "unclaim of an unassigned task changes nothing", method: http.MethodPost, body: `{"action":"unclaim"}`,
			status: 200, wantEmpty: true, assignee: nil},
		{desc: "delegate makes the holder the owner", before: []string{`{"action":"claim","assignee":"kermit"}`},
			method: http.MethodPost, body: `{"action":"delegate","assignee":"fozzie"}`, status: 200, wantEmpty: true,
			assignee: "fozzie", owner: "kermit", delegation: "pending"},
		{desc: "delegate keeps an owner", before: []string{`PUT {"assignee":"gonzo","owner":"admin"}`},
			method: http.MethodPost, body: `{"action":"delegate","assignee":"fozzie"}`, status: 200, wantEmpty: true,
			assignee: "fozzie", owner: "admin", delegation: "pending"},
		{desc: "delegate needs an assignee", method: http.MethodPost, body: `{"action":"delegate"}`, status: 400,
			wantBody: `{"message":"Bad request","exception":"An assignee is required when delegating a task."}`},
		{desc: "resolve gives the task back to its owner",
			before: []string{`{"action":"claim","assignee":"kermit"}`, `{"action":"delegate","assignee":"fozzie"}`},
			method: http.MethodPost, body: `{"action":"resolve"}`, status: 200, wantEmpty: true,
			assignee: "kermit", owner: "kermit", delegation: "resolved"},
		{desc: "complete without disposition is 400 and keeps the task", method: http.MethodPost, body: `{"action":"complete"}`,
			status: 400, assignee: nil},
		{desc: "assign sets the members sent", method: http.MethodPut, body: `{"assignee":"gonzo","owner":"admin"}`,
			status: 200, assignee: "gonzo", owner: "admin"},
		{desc: "assign keeps what is not sent", before: []string{`PUT {"assignee":"gonzo","owner":"admin"}`},
			method: http.MethodPut, body: `{"assignee":"fozzie"}`, status: 200, assignee: "fozzie", owner: "admin"},
		{desc: "assign with null clears", before: []string{`PUT {"assignee":"gonzo","owner":"admin"}`},
			method: http.MethodPut, body: `{"owner":null}`, status: 200, assignee: "gonzo", owner: nil},
		{desc: "assign with a number is 400", method: http.MethodPut, body: `{"assignee":5}`, status: 400, assignee: nil},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			_, taskID := startLoan(t, srv)
			path := "/runtime/tasks/" + taskID
			for _, b := range tt.before {
				method := http.MethodPost
				if len(b) > 4 && b[:4] == "PUT " {
					method, b = http.MethodPut, b[4:]
				}
				status, raw := send(t, srv, method, path, b)
				require.Equal(t, http.StatusOK, status, string(raw))
			}
			status, raw := send(t, srv, tt.method, path, tt.body)
			assert.Equal(t, tt.status, status, string(raw))
			if tt.wantEmpty {
				assert.Empty(t, raw)
			}
			if tt.wantBody != "" {
				assert.JSONEq(t, strings.ReplaceAll(tt.wantBody, "%s", taskID), string(raw))
			}
			status, raw = send(t, srv, http.MethodGet, path, "")
			require.Equal(t, http.StatusOK, status)
			task := decode(t, raw)
			assert.Equal(t, tt.assignee, task["assignee"])
			assert.Equal(t, tt.owner, task["owner"])
			assert.Equal(t, tt.delegation, task["delegationState"])
		})
	}
}

func TestUnknownTask(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		desc, method, path, body, id string
	}{
		{"get", http.MethodGet, "/runtime/tasks/444", "", "444"},
		{"put", http.MethodPut, "/runtime/tasks/444", `{"assignee":"kermit"}`, "444"},
		{"claim", http.MethodPost, "/runtime/tasks/444", `{"action":"claim","assignee":"kermit"}`, "444"},
		{"complete", http.MethodPost, "/runtime/tasks/444", `{"action":"complete"}`, "444"},
		{"not a number", http.MethodGet, "/runtime/tasks/abc", "", "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			status, raw := send(t, srv, tt.method, tt.path, tt.body)
			assert.Equal(t, http.StatusNotFound, status)
			assert.JSONEq(t, `{"message":"Not found","exception":"Could not find a task with id '`+tt.id+`'."}`, string(raw))
		})
	}
}

func TestTaskLists(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	// Three loans: the first claimed by kermit, the second completed with
	// saveforlater by gonzo, the third untouched.
	_, first := startLoan(t, srv)
	_, second := startLoan(t, srv)
	_, third := startLoan(t, srv)
	for _, call := range []struct{ id, body string }{
		{first, `{"action":"claim","assignee":"kermit"}`},
		{second, `{"action":"claim","assignee":"gonzo"}`},
		{second, `{"action":"complete","variables":[{"name":"disposition","value":"saveforlater"}]}`},
	} {
		status, raw := send(t, srv, http.MethodPost, "/runtime/tasks/"+call.id, call.body)
		require.Equal(t, http.StatusOK, status, string(raw))
	}
	tests := []struct {
		desc   string
		path   string
		status int
		keys   []string
		ids    []string
		total  float64
	}{
		{desc: "all open", path: "/runtime/tasks", status: 200, keys: []string{"UnassignedLoan", "UnassignedLoan", "SaveForLater"}, total: 3},
		{desc: "candidate sees only unassigned", path: "/runtime/tasks?candidateUser=fozzie", status: 200, ids: []string{third}, total: 1},
		{desc: "candidate group", path: "/runtime/tasks?candidateGroup=management", status: 200, ids: []string{third}, total: 1},
		{desc: "not a candidate", path: "/runtime/tasks?candidateUser=admin", status: 200, ids: []string{}, total: 0},
		{desc: "assignee", path: "/runtime/tasks?assignee=kermit", status: 200, ids: []string{first}, total: 1},
		{desc: "unassigned", path: "/runtime/tasks?unassigned=true", status: 200, ids: []string{third}, total: 1},
		{desc: "save for later stays with its holder", path: "/runtime/tasks?taskDefinitionKey=SaveForLater&assignee=gonzo",
			status: 200, keys: []string{"SaveForLater"}, total: 1},
		{desc: "description", path: "/runtime/tasks?description=A%20loan%20application%20waiting%20for%20a%20loan%20officer",
			status: 200, ids: []string{first, third}, total: 2},
		{desc: "paging keeps the total", path: "/runtime/tasks?size=1&start=1", status: 200, ids: []string{third}, total: 3},
		{desc: "desc by create time", path: "/runtime/tasks?sort=createTime&order=desc&size=2", status: 200, total: 3,
			keys: []string{"SaveForLater", "UnassignedLoan"}},
		{desc: "bad order", path: "/runtime/tasks?order=up", status: 400},
		{desc: "bad sort", path: "/runtime/tasks?sort=colour", status: 400},
		{desc: "bad size", path: "/runtime/tasks?size=ten", status: 400},
		{desc: "history finished", path: "/history/historic-task-instances?finished=true", status: 200, ids: []string{second}, total: 1},
		{desc: "history unfinished", path: "/history/historic-task-instances?finished=false&taskDefinitionKey=UnassignedLoan",
			status: 200, ids: []string{first, third}, total: 2},
		{desc: "history by assignee", path: "/history/historic-task-instances?taskAssignee=gonzo&finished=true",
			status: 200, ids: []string{second}, total: 1},
		{desc: "history involved user", path: "/history/historic-task-instances?finished=true&taskInvolvedUser=fozzie",
			status: 200, ids: []string{second}, total: 1},
		{desc: "history sort by start time", path: "/history/historic-task-instances?sort=startTime&order=desc&size=1",
			status: 200, keys: []string{"SaveForLater"}, total: 4},
		{desc: "history bad order", path: "/history/historic-task-instances?order=sideways", status: 400},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			status, raw := send(t, srv, http.MethodGet, tt.path, "")
			require.Equal(t, tt.status, status, string(raw))
			body := decode(t, raw)
			if status != http.StatusOK {
				assert.Equal(t, "Bad request", body["message"])
				assert.NotEmpty(t, body["exception"])
				return
			}
			data := body["data"].([]any)
			assert.Equal(t, tt.total, body["total"])
			assert.Equal(t, float64(len(data)), body["size"])
			var ids, keys []string
			for _, d := range data {
				task := d.(map[string]any)
				ids = append(ids, task["id"].(string))
				keys = append(keys, task["taskDefinitionKey"].(string))
			}
			if tt.ids != nil {
				assert.ElementsMatch(t, tt.ids, ids)
			}
			if tt.keys != nil {
				assert.Equal(t, tt.keys, keys)
			}
		})
	}
}

func TestHistoricTaskFields(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	instanceID, taskID := startLoan(t, srv)
	status, raw := send(t, srv, http.MethodPost, "/runtime/tasks/"+taskID,
		`{"action":"complete","variables":[{"name":"disposition","value":"complete"}]}`)
	require.Equal(t, http.StatusOK, status, string(raw))
	status, _ = send(t, srv, http.MethodGet, "/runtime/tasks/"+taskID, "")
	assert.Equal(t, http.StatusNotFound, status, "a completed task leaves the runtime")
	status, raw = send(t, srv, http.MethodGet, "/history/historic-task-instances?finished=true&processInstanceId="+instanceID, "")
	require.Equal(t, http.StatusOK, status)
	data := decode(t, raw)["data"].([]any)
	require.Len(t, data, 1)
	h := data[0].(map[string]any)
	assert.Equal(t, taskID, h["id"])
	assert.Nil(t, h["deleteReason"])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$`, h["endTime"])
	assert.GreaterOrEqual(t, h["durationInMillis"], float64(0))
	status, raw = send(t, srv, http.MethodGet, "/runtime/tasks?processInstanceId="+instanceID, "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, float64(0), decode(t, raw)["total"], "complete ends the instance")
}
