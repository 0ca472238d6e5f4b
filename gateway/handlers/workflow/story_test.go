package workflow_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
)

type storyTask struct {
	ID                string  `json:"id"`
	TaskDefinitionKey string  `json:"taskDefinitionKey"`
	Assignee          *string `json:"assignee"`
	ProcessInstanceID string  `json:"processInstanceId"`
	EndTime           *string `json:"endTime"`
}

func tasksIn(t *testing.T, a handlertest.Answer) []storyTask {
	t.Helper()
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	var tasks []storyTask
	require.NoError(t, json.Unmarshal(a.Result, &tasks), "%s", a.Raw)
	return tasks
}

// TestLoanStory walks the seed's loan process through the gateway's public
// routes against the reference engine: start, find, claim, a conflicting
// claim, save for later, complete, and the history of both tasks.
func TestLoanStory(t *testing.T) {
	t.Parallel()
	h := newGateway(t, newSandbox(t))
	const officer, other = "gonzo", "fozzie"

	a := do(t, h, request{method: "POST", target: "/v2/process-instances",
		body: `{"processDefinitionKey":"loanProcess","businessKey":"loan-42","variables":[{"name":"amount","value":25000}]}`})
	require.Equal(t, http.StatusCreated, a.Status, "%s", a.Raw)
	instance := field(t, a.Result, "id")
	require.NotEmpty(t, instance)

	open := tasksIn(t, do(t, h, request{method: "GET",
		target: "/v2/tasks?status=open&candidate=" + officer + "&taskDefinitionKey=UnassignedLoan"}))
	require.Len(t, open, 1)
	loan := open[0]
	assert.Equal(t, instance, loan.ProcessInstanceID)
	assert.Nil(t, loan.Assignee)

	a = do(t, h, request{method: "POST", target: "/v2/tasks/" + loan.ID + "/claims", user: officer})
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	assert.JSONEq(t, `""`, string(a.Result))
	assert.Equal(t, officer, a.UserID)

	a = do(t, h, request{method: "POST", target: "/v2/tasks/" + loan.ID + "/claims", user: other})
	assert.Equal(t, http.StatusConflict, a.Status, "%s", a.Raw)
	assert.Equal(t, "SOBJECT_OPERATION_FAILED", a.ResponseCode.ID)

	a = do(t, h, request{method: "GET", target: "/v2/tasks/" + loan.ID})
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	assert.Equal(t, officer, field(t, a.Result, "assignee"), "the conflicting claim changed nothing")

	a = do(t, h, request{method: "POST", target: "/v2/tasks/" + loan.ID + "/completions", user: officer,
		body: `{"disposition":"saveforlater","variables":[{"name":"note","value":"missing payslip"}]}`})
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	assert.JSONEq(t, `""`, string(a.Result))

	later := tasksIn(t, do(t, h, request{method: "GET", target: "/v2/tasks?taskDefinitionKey=SaveForLater&assignee=" + officer}))
	require.Len(t, later, 1)
	assert.Equal(t, instance, later[0].ProcessInstanceID)
	assert.NotEqual(t, loan.ID, later[0].ID)

	a = do(t, h, request{method: "POST", target: "/v2/tasks/" + later[0].ID + "/completions", user: officer,
		body: `{"disposition":"complete"}`})
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	assert.Empty(t, tasksIn(t, do(t, h, request{method: "GET", target: "/v2/tasks"})), "complete ends the instance")

	closed := tasksIn(t, do(t, h, request{method: "GET", target: "/v2/tasks?status=closed&assignee=" + officer + "&order=asc&size=100"}))
	require.Len(t, closed, 2)
	assert.Equal(t, []string{loan.ID, later[0].ID}, []string{closed[0].ID, closed[1].ID})
	assert.Equal(t, []string{"UnassignedLoan", "SaveForLater"}, []string{closed[0].TaskDefinitionKey, closed[1].TaskDefinitionKey})
	for _, c := range closed {
		assert.Equal(t, instance, c.ProcessInstanceID)
		assert.NotNil(t, c.EndTime)
	}
}
