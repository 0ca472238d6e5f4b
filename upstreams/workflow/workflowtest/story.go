// Package workflowtest tells the seed's loan story once, for the two places
// that walk it: the workflow adapter's tests, against the reference engine
// directly, and the gateway's workflow route tests, through the gateway's
// public routes. Each supplies a Desk; LoanStory does the rest.
//
// It also serves fake engines of several Flowable releases (Engine,
// Generation), each written from that release's source, for the tests of
// how the adapter and the gateway type variables per engine version.
package workflowtest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/workflow"
)

// Task is what the story reads of a task, open or closed.
type Task struct {
	ID                string  `json:"id"`
	TaskDefinitionKey string  `json:"taskDefinitionKey"`
	Assignee          *string `json:"assignee"`
	Owner             *string `json:"owner"`
	ProcessInstanceID string  `json:"processInstanceId"`
	EndTime           *string `json:"endTime"`
	// Variables are the process variables, when the query asked for them.
	Variables []Variable `json:"variables"`
}

// Variable is a variable of a task as the engine answers it.
type Variable struct {
	Name  string          `json:"name"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
	Scope string          `json:"scope"`
}

// Desk works the loan process: the adapter itself, or the gateway in front
// of it. Each method fails t when the answer is not a success, except where
// it returns a status.
type Desk interface {
	// Start starts a process instance and returns its id.
	Start(t *testing.T, r workflow.StartRequest) string
	// Tasks lists the tasks q selects.
	Tasks(t *testing.T, q workflow.TaskQuery) []Task
	// Claim claims task id for user: 200, or the engine's refusal (409
	// when another user holds the task).
	Claim(t *testing.T, id, user string) int
	// Task is open task id: 200 with the task, or 404 once it is not open.
	Task(t *testing.T, id string) (Task, int)
	// Assign sets what body ({assignee?, owner?}) names on task id and
	// returns the task after.
	Assign(t *testing.T, id, body string) Task
	// Complete completes task id as user with disposition (complete,
	// incomplete or saveforlater) and variables.
	Complete(t *testing.T, id, user, disposition string, variables []workflow.Variable)
}

// The people of the story: the loan officer works the loan; the other
// candidate may claim it but is refused once the officer holds it.
const (
	Officer = "gonzo"
	Other   = "fozzie"
)

// LoanStory walks the loan process through d: start, find the task as a
// candidate, claim it (again as its holder: a no-op), a conflicting claim,
// save for later, the follow-up task, its owner, complete, and the history
// of both tasks.
func LoanStory(t *testing.T, d Desk) {
	t.Helper()
	instance := d.Start(t, workflow.StartRequest{ProcessDefinitionKey: "loanProcess", BusinessKey: "loan-42",
		Variables: []workflow.Variable{
			{Name: "amount", Value: json.RawMessage(`1.10`)},
			{Name: "applied", Type: "date", Value: json.RawMessage(`"2013-04-17T12:17:43.902+02:00"`)},
			{Name: "applicant", Value: json.RawMessage(`{"name":"Fozzie","income":[1200.50,1300]}`)},
			{Name: "installments", Value: json.RawMessage(`12`)},
		}})
	require.NotEmpty(t, instance)

	open := d.Tasks(t, workflow.TaskQuery{Status: "open", Candidate: Officer, TaskDefinitionKey: "UnassignedLoan", Order: "desc", Size: 10,
		IncludeProcessVariables: true, ProcessInstanceBusinessKey: "loan-42"})
	require.Len(t, open, 1)
	loan := open[0]
	assert.Equal(t, instance, loan.ProcessInstanceID)
	assert.Nil(t, loan.Assignee)
	vars := map[string]Variable{}
	for _, v := range loan.Variables {
		vars[v.Name] = v
	}
	assert.Equal(t, Variable{Name: "amount", Type: "bigDecimal", Value: json.RawMessage(`"1.10"`), Scope: "global"}, vars["amount"],
		"1.10 keeps its digits")
	assert.Equal(t, Variable{Name: "applied", Type: "date", Value: json.RawMessage(`"2013-04-17T10:17:43.902Z"`), Scope: "global"}, vars["applied"],
		"a date is a date, not a string")
	assert.Equal(t, "json", vars["applicant"].Type, "an object is json, not a serialised Java map")
	assert.JSONEq(t, `{"name":"Fozzie","income":[1200.50,1300]}`, string(vars["applicant"].Value))
	assert.Equal(t, Variable{Name: "installments", Type: "integer", Value: json.RawMessage(`12`), Scope: "global"}, vars["installments"])
	assert.Empty(t, d.Tasks(t, workflow.TaskQuery{ProcessInstanceBusinessKey: "loan-43"}))
	assert.Len(t, d.Tasks(t, workflow.TaskQuery{ProcessInstanceID: instance, Unassigned: true}), 1)
	assert.Len(t, d.Tasks(t, workflow.TaskQuery{CandidateGroup: "management"}), 1)

	require.Equal(t, http.StatusOK, d.Claim(t, loan.ID, Officer))
	assert.Equal(t, http.StatusOK, d.Claim(t, loan.ID, Officer), "claiming again as the holder is a no-op")
	assert.Equal(t, http.StatusConflict, d.Claim(t, loan.ID, Other))
	assert.Empty(t, d.Tasks(t, workflow.TaskQuery{Candidate: Other}), "a claimed task is no longer offered to candidates")
	assert.Empty(t, d.Tasks(t, workflow.TaskQuery{ProcessInstanceID: instance, Unassigned: true}))
	task, status := d.Task(t, loan.ID)
	require.Equal(t, http.StatusOK, status)
	require.NotNil(t, task.Assignee)
	assert.Equal(t, Officer, *task.Assignee, "the conflicting claim changed nothing")

	d.Complete(t, loan.ID, Officer, "saveforlater", []workflow.Variable{{Name: "note", Value: json.RawMessage(`"missing payslip"`)}})
	_, status = d.Task(t, loan.ID)
	assert.Equal(t, http.StatusNotFound, status, "a completed task is no longer open")

	later := d.Tasks(t, workflow.TaskQuery{Assignee: Officer, TaskDefinitionKey: "SaveForLater"})
	require.Len(t, later, 1)
	assert.Equal(t, instance, later[0].ProcessInstanceID)
	assert.NotEqual(t, loan.ID, later[0].ID)
	assigned := d.Assign(t, later[0].ID, `{"owner":"admin"}`)
	require.NotNil(t, assigned.Owner)
	require.NotNil(t, assigned.Assignee)
	assert.Equal(t, "admin", *assigned.Owner)
	assert.Equal(t, Officer, *assigned.Assignee, "setting the owner keeps the assignee")

	d.Complete(t, later[0].ID, Officer, "complete", nil)
	assert.Empty(t, d.Tasks(t, workflow.TaskQuery{}), "complete ends the instance")

	closed := d.Tasks(t, workflow.TaskQuery{Status: "closed", Assignee: Officer, Order: "asc", Size: 100})
	require.Len(t, closed, 2)
	assert.Equal(t, []string{loan.ID, later[0].ID}, []string{closed[0].ID, closed[1].ID})
	assert.Equal(t, []string{"UnassignedLoan", "SaveForLater"}, []string{closed[0].TaskDefinitionKey, closed[1].TaskDefinitionKey})
	for _, c := range closed {
		assert.Equal(t, instance, c.ProcessInstanceID)
		assert.NotNil(t, c.EndTime)
	}
	assert.Len(t, d.Tasks(t, workflow.TaskQuery{Status: "closed", Candidate: Other}), 2,
		"closed tasks of a candidate come from the involved-user history query")
	assert.Empty(t, d.Tasks(t, workflow.TaskQuery{Status: "closed", Assignee: Other}))
}
