package workflow_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
	engine "github.com/restgate/gateway/upstreams/workflow"
	"github.com/restgate/gateway/upstreams/workflow/workflowtest"
)

// gatewayDesk works the loan story through the gateway's public routes,
// checking each answer's envelope on the way.
type gatewayDesk struct{ h http.Handler }

func (d gatewayDesk) Start(t *testing.T, r engine.StartRequest) string {
	body, err := json.Marshal(r)
	require.NoError(t, err)
	a := do(t, d.h, request{method: "POST", target: "/v2/process-instances", body: string(body)})
	require.Equal(t, http.StatusCreated, a.Status, "%s", a.Raw)
	return field(t, a.Result, "id")
}

func (d gatewayDesk) Tasks(t *testing.T, q engine.TaskQuery) []workflowtest.Task {
	params := url.Values{}
	for name, v := range map[string]string{"status": q.Status, "candidate": q.Candidate, "assignee": q.Assignee,
		"taskDefinitionKey": q.TaskDefinitionKey, "description": q.Description, "order": q.Order,
		"candidateGroup": q.CandidateGroup, "processInstanceId": q.ProcessInstanceID,
		"processInstanceBusinessKey": q.ProcessInstanceBusinessKey} {
		if v != "" {
			params.Set(name, v)
		}
	}
	for name, on := range map[string]bool{"unassigned": q.Unassigned, "includeProcessVariables": q.IncludeProcessVariables} {
		if on {
			params.Set(name, "true")
		}
	}
	if q.Size != 0 {
		params.Set("size", strconv.Itoa(q.Size))
	}
	if q.Start != 0 {
		params.Set("start", strconv.Itoa(q.Start))
	}
	a := do(t, d.h, request{method: "GET", target: "/v2/tasks?" + params.Encode()})
	return result[[]workflowtest.Task](t, a)
}

func (d gatewayDesk) Claim(t *testing.T, id, user string) int {
	a := do(t, d.h, request{method: "POST", target: "/v2/tasks/" + id + "/claims", user: user})
	if a.Status == http.StatusOK {
		assert.JSONEq(t, `""`, string(a.Result))
		assert.Equal(t, user, a.UserID)
	} else {
		assert.Equal(t, "SOBJECT_OPERATION_FAILED", a.ResponseCode.ID, "%s", a.Raw)
	}
	return a.Status
}

func (d gatewayDesk) Task(t *testing.T, id string) (workflowtest.Task, int) {
	a := do(t, d.h, request{method: "GET", target: "/v2/tasks/" + id})
	if a.Status != http.StatusOK {
		assert.Equal(t, "SOBJECT_OPERATION_FAILED", a.ResponseCode.ID, "%s", a.Raw)
		return workflowtest.Task{}, a.Status
	}
	return result[workflowtest.Task](t, a), a.Status
}

func (d gatewayDesk) Assign(t *testing.T, id, body string) workflowtest.Task {
	return result[workflowtest.Task](t, do(t, d.h, request{method: "PUT", target: "/v2/tasks/" + id, body: body}))
}

func (d gatewayDesk) Complete(t *testing.T, id, user, disposition string, variables []engine.Variable) {
	body, err := json.Marshal(struct {
		Disposition string            `json:"disposition"`
		Variables   []engine.Variable `json:"variables,omitempty"`
	}{disposition, variables})
	require.NoError(t, err)
	a := do(t, d.h, request{method: "POST", target: "/v2/tasks/" + id + "/completions", user: user, body: string(body)})
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	assert.JSONEq(t, `""`, string(a.Result))
}

// result decodes a success's result.
func result[T any](t *testing.T, a handlertest.Answer) T {
	t.Helper()
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	var v T
	require.NoError(t, json.Unmarshal(a.Result, &v), "%s", a.Raw)
	return v
}

// TestLoanStory walks the seed's loan process through the gateway's public
// routes against the reference engine.
func TestLoanStory(t *testing.T) {
	t.Parallel()
	workflowtest.LoanStory(t, gatewayDesk{newGateway(t, newSandbox(t))})
}
