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
	"github.com/restgate/gateway/upstreams/workflow/workflowtest"
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
	return workflow.New(srv.URL, newDoer(), workflow.Options{})
}

// statusOf is the backend's status of a refusal, 200 of a success.
func statusOf(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return http.StatusOK
	}
	ue := upstreams.AsError(err)
	require.NotNil(t, ue, "want an upstream error, got %v", err)
	assert.Equal(t, upstreams.KindRejected, ue.Kind)
	return ue.Status
}

func decode[T any](t *testing.T, raw []byte, err error) T {
	t.Helper()
	require.NoError(t, err)
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	return v
}

// adapterDesk works the loan story with the adapter itself.
type adapterDesk struct{ c *workflow.Client }

func (d adapterDesk) Start(t *testing.T, r workflow.StartRequest) string {
	raw, err := d.c.StartProcess(context.Background(), r)
	return decode[workflowtest.Task](t, raw, err).ID
}

func (d adapterDesk) Tasks(t *testing.T, q workflow.TaskQuery) []workflowtest.Task {
	list, err := d.c.Tasks(context.Background(), q)
	return decode[[]workflowtest.Task](t, list.Data, err)
}

func (d adapterDesk) Claim(t *testing.T, id, user string) int {
	return statusOf(t, d.c.Claim(context.Background(), id, user))
}

func (d adapterDesk) Task(t *testing.T, id string) (workflowtest.Task, int) {
	raw, err := d.c.Task(context.Background(), id)
	if status := statusOf(t, err); status != http.StatusOK {
		return workflowtest.Task{}, status
	}
	return decode[workflowtest.Task](t, raw, err), http.StatusOK
}

func (d adapterDesk) Assign(t *testing.T, id, body string) workflowtest.Task {
	raw, err := d.c.Assign(context.Background(), id, []byte(body))
	return decode[workflowtest.Task](t, raw, err)
}

func (d adapterDesk) Complete(t *testing.T, id, _, disposition string, variables []workflow.Variable) {
	require.NoError(t, d.c.Complete(context.Background(), id, disposition, variables))
}

func TestLoanStory(t *testing.T) {
	t.Parallel()
	workflowtest.LoanStory(t, adapterDesk{newSandboxClient(t)})
}

// TestSandboxLookups: the user, the definitions and a start the engine
// refuses, against the reference engine.
func TestSandboxLookups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newSandboxClient(t)

	user, err := c.User(ctx, "kermit")
	require.NoError(t, err)
	assert.Contains(t, string(user), `"id":"kermit"`)
	_, err = c.User(ctx, "ghost")
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))

	defs, err := c.ProcessDefinitions(ctx, workflow.DefinitionQuery{Latest: true})
	require.NoError(t, err)
	assert.Contains(t, string(defs.Data), `"id":"loanProcess:2:3"`)
	assert.NotContains(t, string(defs.Data), `"id":"loanProcess:1:4"`, "only the latest version")
	assert.Equal(t, workflow.List{Data: defs.Data, Start: 0, Size: 1, Total: 1}, defs)
	all, err := c.ProcessDefinitions(ctx, workflow.DefinitionQuery{Key: "loanProcess", Size: 1, Start: 1})
	require.NoError(t, err)
	assert.Contains(t, string(all.Data), `"version":`)
	assert.Equal(t, 1, all.Start)
	assert.Equal(t, 1, all.Size)
	assert.EqualValues(t, 2, all.Total, "every version")

	_, err = c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionID: "nope:1:1"})
	assert.Equal(t, http.StatusBadRequest, statusOf(t, err))
}
