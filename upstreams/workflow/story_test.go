package workflow_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	sandboxworkflow "github.com/restgate/gateway/upstreams/sandbox/workflow"
	"github.com/restgate/gateway/upstreams/workflow"
)

// newSandboxClient is the adapter in front of the reference engine, as the
// gateway runs it when the workflow URL is "sandbox".
func newSandboxClient(t *testing.T) *workflow.Client {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := sandboxworkflow.New(db)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return workflow.New(srv.URL, newDoer())
}

type storyTask struct {
	ID                string  `json:"id"`
	TaskDefinitionKey string  `json:"taskDefinitionKey"`
	Assignee          *string `json:"assignee"`
	ProcessInstanceID string  `json:"processInstanceId"`
	EndTime           *string `json:"endTime"`
}

func tasksOf(t *testing.T, raw []byte, err error) []storyTask {
	t.Helper()
	require.NoError(t, err)
	var tasks []storyTask
	require.NoError(t, json.Unmarshal(raw, &tasks))
	return tasks
}

func requireStatus(t *testing.T, err error, status int) {
	t.Helper()
	ue := upstreams.AsError(err)
	require.NotNil(t, ue, "want an upstream error, got %v", err)
	assert.Equal(t, upstreams.KindRejected, ue.Kind)
	assert.Equal(t, status, ue.Status)
}

func TestLoanStory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newSandboxClient(t)

	user, err := c.User(ctx, "kermit")
	require.NoError(t, err)
	assert.Contains(t, string(user), `"id":"kermit"`)
	_, err = c.User(ctx, "ghost")
	requireStatus(t, err, http.StatusNotFound)

	defs, err := c.ProcessDefinitions(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(defs), `"id":"loanProcess:1:4"`)

	started, err := c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionKey: "loanProcess", BusinessKey: "loan-42",
		Variables: []workflow.Variable{{Name: "amount", Value: 25000}}})
	require.NoError(t, err)
	var instance struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(started, &instance))
	_, err = c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionID: "nope:1:1"})
	requireStatus(t, err, http.StatusBadRequest)

	raw, err := c.Tasks(ctx, workflow.TaskQuery{Status: "open", Candidate: "gonzo", TaskDefinitionKey: "UnassignedLoan", Order: "desc", Size: 10})
	open := tasksOf(t, raw, err)
	require.Len(t, open, 1)
	loan := open[0]
	assert.Equal(t, instance.ID, loan.ProcessInstanceID)
	assert.Nil(t, loan.Assignee)

	require.NoError(t, c.Claim(ctx, loan.ID, "kermit"))
	require.NoError(t, c.Claim(ctx, loan.ID, "kermit"), "claiming again as the holder is a no-op")
	requireStatus(t, c.Claim(ctx, loan.ID, "gonzo"), http.StatusConflict)

	raw, err = c.Tasks(ctx, workflow.TaskQuery{Candidate: "gonzo"})
	assert.Empty(t, tasksOf(t, raw, err), "a claimed task is no longer offered to candidates")

	task, err := c.Task(ctx, loan.ID)
	require.NoError(t, err)
	assert.Contains(t, string(task), `"assignee":"kermit"`)

	require.NoError(t, c.Complete(ctx, loan.ID, "saveforlater", []workflow.Variable{{Name: "note", Value: "missing payslip"}}))
	_, err = c.Task(ctx, loan.ID)
	requireStatus(t, err, http.StatusNotFound)

	raw, err = c.Tasks(ctx, workflow.TaskQuery{Assignee: "kermit", TaskDefinitionKey: "SaveForLater"})
	later := tasksOf(t, raw, err)
	require.Len(t, later, 1)
	assert.Equal(t, instance.ID, later[0].ProcessInstanceID)

	assigned, err := c.Assign(ctx, later[0].ID, []byte(`{"owner":"admin"}`))
	require.NoError(t, err)
	assert.Contains(t, string(assigned), `"owner":"admin"`)
	assert.Contains(t, string(assigned), `"assignee":"kermit"`)

	require.NoError(t, c.Complete(ctx, later[0].ID, "complete", nil))
	raw, err = c.Tasks(ctx, workflow.TaskQuery{})
	assert.Empty(t, tasksOf(t, raw, err), "complete ends the instance")

	raw, err = c.Tasks(ctx, workflow.TaskQuery{Status: "closed", Assignee: "kermit", Order: "asc", Size: 100})
	closed := tasksOf(t, raw, err)
	require.Len(t, closed, 2)
	assert.Equal(t, []string{"UnassignedLoan", "SaveForLater"}, []string{closed[0].TaskDefinitionKey, closed[1].TaskDefinitionKey})
	for _, ct := range closed {
		assert.NotNil(t, ct.EndTime)
	}
	raw, err = c.Tasks(ctx, workflow.TaskQuery{Status: "closed", Candidate: "fozzie"})
	assert.Len(t, tasksOf(t, raw, err), 2, "closed tasks of a candidate come from the involved-user history query")
	raw, err = c.Tasks(ctx, workflow.TaskQuery{Status: "closed", Assignee: "gonzo"})
	assert.Empty(t, tasksOf(t, raw, err))
}
