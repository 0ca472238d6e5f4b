package workflow_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/workflow"
)

// newServer starts the engine on a fresh database.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := workflow.New(db)
	require.NoError(t, err)
	return serve(t, h)
}

// serve serves h until the test ends.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// send does one call and returns the status and the body.
func send(t *testing.T, srv *httptest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = bytes.NewBufferString(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, r)
	require.NoError(t, err)
	req.SetBasicAuth("kermit", "kermit")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, raw
}

func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v), string(raw))
	return v
}

func startLoan(t *testing.T, srv *httptest.Server) (instanceID, taskID string) {
	t.Helper()
	status, raw := send(t, srv, http.MethodPost, "/runtime/process-instances",
		`{"processDefinitionKey":"loanProcess","businessKey":"loan-1","variables":[{"name":"amount","value":1200}]}`)
	require.Equal(t, http.StatusCreated, status, string(raw))
	instanceID = decode(t, raw)["id"].(string)
	status, raw = send(t, srv, http.MethodGet, "/runtime/tasks?processInstanceId="+instanceID, "")
	require.Equal(t, http.StatusOK, status, string(raw))
	data := decode(t, raw)["data"].([]any)
	require.Len(t, data, 1)
	return instanceID, data[0].(map[string]any)["id"].(string)
}

func TestIdentityAndDefinitions(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		desc   string
		path   string
		status int
		want   string
	}{
		{"user", "/identity/users/kermit", 200,
			`{"id":"kermit","firstName":"Kermit","lastName":"the Frog","displayName":"Kermit the Frog",
			"url":"` + srv.URL + `/identity/users/kermit","email":"kermit@example.com","tenantId":null,"pictureUrl":null}`},
		{"unknown user", "/identity/users/ghost", 404,
			`{"message":"Not found","exception":"Could not find a user with id 'ghost'."}`},
		{"definitions, every version", "/repository/process-definitions?size=1", 200,
			`{"data":[{"id":"loanProcess:1:4","url":"` + srv.URL + `/repository/process-definitions/loanProcess:1:4",
			"key":"loanProcess","version":1,"name":"Loan Process","description":"Review and decide a loan application",
			"tenantId":"","deploymentId":"1","deploymentUrl":"` + srv.URL + `/repository/deployments/1",
			"resource":"` + srv.URL + `/repository/deployments/1/resources/loanProcess.bpmn20.xml","diagramResource":null,
			"category":"http://www.flowable.org/processdef","graphicalNotationDefined":false,"suspended":false,
			"startFormDefined":false}],"total":2,"start":0,"sort":"name","order":"asc","size":1}`},
		{"definitions, the latest version", "/repository/process-definitions?latest=true", 200,
			`{"data":[{"id":"loanProcess:2:3","url":"` + srv.URL + `/repository/process-definitions/loanProcess:2:3",
			"key":"loanProcess","version":2,"name":"Loan Process","description":"Review and decide a loan application",
			"tenantId":"","deploymentId":"2","deploymentUrl":"` + srv.URL + `/repository/deployments/2",
			"resource":"` + srv.URL + `/repository/deployments/2/resources/loanProcess.bpmn20.xml","diagramResource":null,
			"category":"http://www.flowable.org/processdef","graphicalNotationDefined":false,"suspended":false,
			"startFormDefined":false}],"total":1,"start":0,"sort":"name","order":"asc","size":1}`},
		{"definitions by unknown key", "/repository/process-definitions?key=nope", 200,
			`{"data":[],"total":0,"start":0,"sort":"name","order":"asc","size":0}`},
		{"definitions bad sort", "/repository/process-definitions?sort=color", 400,
			`{"message":"Bad request","exception":"Value for param 'sort' is not valid, 'color' is not a valid property"}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			status, raw := send(t, srv, http.MethodGet, tt.path, "")
			assert.Equal(t, tt.status, status)
			assert.JSONEq(t, tt.want, string(raw))
		})
	}
}

func TestStart(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		desc      string
		body      string
		status    int
		exception string
	}{
		{"by key starts the latest version", `{"processDefinitionKey":"loanProcess"}`, 201, ""},
		{"by id", `{"processDefinitionId":"loanProcess:1:4","variables":[{"name":"a","value":{"x":1}}]}`, 201, ""},
		{"unknown key is 400", `{"processDefinitionKey":"nope"}`, 400, "no processes deployed with key 'nope'"},
		{"unknown id is 400", `{"processDefinitionId":"nope:1:1"}`, 400, "no deployed process definition found with id 'nope:1:1'"},
		{"none", `{"businessKey":"b"}`, 400, "Either processDefinitionId, processDefinitionKey or message is required."},
		{"both", `{"processDefinitionId":"loanProcess:1:4","processDefinitionKey":"loanProcess"}`, 400,
			"Only one of processDefinitionId, processDefinitionKey or message should be set."},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			status, raw := send(t, srv, http.MethodPost, "/runtime/process-instances", tt.body)
			require.Equal(t, tt.status, status, string(raw))
			got := decode(t, raw)
			if tt.exception != "" {
				assert.Equal(t, map[string]any{"message": "Bad request", "exception": tt.exception}, got)
				return
			}
			assert.Regexp(t, `^[0-9]+$`, got["id"])
			assert.Regexp(t, `^loanProcess:`, got["processDefinitionId"])
			assert.Equal(t, "kermit", got["startUserId"])
			assert.Equal(t, false, got["ended"])
			assert.Equal(t, "UnassignedLoan", got["activityId"])
			assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$`, got["startTime"])
			for _, k := range []string{"url", "businessKey", "suspended", "variables", "completed"} {
				assert.Contains(t, got, k)
			}
		})
	}
}

func TestTaskFields(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	instanceID, taskID := startLoan(t, srv)
	status, raw := send(t, srv, http.MethodGet, "/runtime/tasks/"+taskID, "")
	require.Equal(t, http.StatusOK, status)
	task := decode(t, raw)
	for _, k := range []string{"id", "url", "owner", "assignee", "delegationState", "name", "description", "createTime",
		"dueDate", "priority", "suspended", "taskDefinitionKey", "tenantId", "processDefinitionId", "processInstanceId",
		"executionId", "claimTime", "category", "formKey", "variables"} {
		assert.Contains(t, task, k)
	}
	assert.Equal(t, "UnassignedLoan", task["taskDefinitionKey"])
	assert.Equal(t, instanceID, task["processInstanceId"])
	assert.NotEqual(t, instanceID, task["executionId"])
	assert.Nil(t, task["assignee"])
	assert.Equal(t, []any{}, task["variables"])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$`, task["createTime"])
	assert.Equal(t, srv.URL+"/runtime/tasks/"+taskID, task["url"])
}

func TestConcurrentClaims(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, taskID := startLoan(t, srv)
	users := []string{"kermit", "gonzo", "fozzie", "admin"}
	statuses := make([]int, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Go(func() {
			statuses[i], _ = send(t, srv, http.MethodPost, "/runtime/tasks/"+taskID, `{"action":"claim","assignee":"`+u+`"}`)
		})
	}
	wg.Wait()
	won := 0
	for _, s := range statuses {
		assert.Contains(t, []int{200, 409, 500}, s, "a claim that loses the race may fail on the optimistic lock")
		if s == 200 {
			won++
		}
	}
	assert.Equal(t, 1, won, "exactly one claim wins")
}

// TestClaimRace holds every claim between its read and its write until all
// have read the unassigned task, as happens on a busy engine: one wins,
// and every other fails on the optimistic lock with the engine's bare 500.
func TestClaimRace(t *testing.T) {
	t.Parallel()
	const claims = 6
	var (
		mu      sync.Mutex
		waiting int
		all     = make(chan struct{})
	)
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := workflow.NewWithOptions(db, workflow.Options{AfterClaimRead: func(string) {
		mu.Lock()
		waiting++
		if waiting == claims {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(30 * time.Second): // a generous bound, never hit when all arrive
		}
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, taskID := startLoan(t, srv)
	statuses := make([]int, claims)
	bodies := make([]string, claims)
	var wg sync.WaitGroup
	for i := range claims {
		wg.Go(func() {
			var raw []byte
			statuses[i], raw = send(t, srv, http.MethodPost, "/runtime/tasks/"+taskID, fmt.Sprintf(`{"action":"claim","assignee":"user%d"}`, i))
			bodies[i] = string(raw)
		})
	}
	wg.Wait()
	won := 0
	for i, s := range statuses {
		if s == http.StatusOK {
			won++
			continue
		}
		assert.Equal(t, http.StatusInternalServerError, s)
		assert.JSONEq(t, `{"message":"Internal server error"}`, bodies[i])
	}
	assert.Equal(t, 1, won)
}

func TestBodyIsBounded(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	body := `{"processDefinitionKey":"loanProcess","businessKey":"` + strings.Repeat("x", 1<<20) + `"}`
	status, raw := send(t, srv, http.MethodPost, "/runtime/process-instances", body)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Bad request", decode(t, raw)["message"])
	status, raw = send(t, srv, http.MethodGet, "/runtime/tasks", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, float64(0), decode(t, raw)["total"], "nothing was started")
}
