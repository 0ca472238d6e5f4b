package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/workflow"
)

func TestParseTaskQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc      string
		query     string
		want      workflow.TaskQuery
		wantParam string
	}{
		{desc: "nothing", query: "", want: workflow.TaskQuery{}},
		{
			desc:  "everything",
			query: "status=closed&candidate=gonzo&assignee=kermit&taskDefinitionKey=UnassignedLoan&description=d&size=1000&order=desc",
			want: workflow.TaskQuery{Status: "closed", Candidate: "gonzo", Assignee: "kermit",
				TaskDefinitionKey: "UnassignedLoan", Description: "d", Size: 1000, Order: "desc"},
		},
		{desc: "open", query: "status=open&size=1&order=asc", want: workflow.TaskQuery{Status: "open", Size: 1, Order: "asc"}},
		{
			desc: "the filters users need",
			query: "candidateGroup=management&unassigned=true&processInstanceId=5&processInstanceBusinessKey=loan-7" +
				"&includeProcessVariables=true&start=20",
			want: workflow.TaskQuery{CandidateGroup: "management", Unassigned: true, ProcessInstanceID: "5",
				ProcessInstanceBusinessKey: "loan-7", IncludeProcessVariables: true, Start: 20},
		},
		{desc: "false flags", query: "unassigned=false&includeProcessVariables=false", want: workflow.TaskQuery{}},
		{desc: "a flag is true or false", query: "unassigned=yes", wantParam: "unassigned"},
		{desc: "a flag is spelled in lower case", query: "includeProcessVariables=TRUE", wantParam: "includeProcessVariables"},
		{desc: "unassigned has no history filter", query: "status=closed&unassigned=true", wantParam: "unassigned"},
		{desc: "start negative", query: "start=-1", wantParam: "start"},
		{desc: "start beyond the engine's int", query: "start=2147483648", wantParam: "start"},
		{desc: "start with a sign", query: "start=+1", wantParam: "start"},
		{desc: "unknown status", query: "status=done", wantParam: "status"},
		{desc: "status case matters", query: "status=OPEN", wantParam: "status"},
		{desc: "size zero", query: "size=0", wantParam: "size"},
		{desc: "size too big", query: "size=1001", wantParam: "size"},
		{desc: "size not a number", query: "size=ten", wantParam: "size"},
		{desc: "size with sign", query: "size=-5", wantParam: "size"},
		{desc: "size with a plus", query: "size=+5", wantParam: "size"},
		{desc: "bad order", query: "order=up", wantParam: "order"},
		{desc: "engine parameter name is not ours", query: "candidateUser=gonzo", wantParam: "candidateUser"},
		{desc: "unknown parameter", query: "sort=name", wantParam: "sort"},
		{desc: "repeated parameter", query: "assignee=a&assignee=b", wantParam: "assignee"},
		{desc: "empty value", query: "assignee=", wantParam: "assignee"},
		{desc: "control character", query: "assignee=a%00b", wantParam: "assignee"},
		{desc: "too long", query: "taskDefinitionKey=" + strings.Repeat("k", 256), wantParam: "taskDefinitionKey"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			q, err := url.ParseQuery(tt.query)
			require.NoError(t, err)
			got, err := workflow.ParseTaskQuery(q)
			if tt.wantParam == "" {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			var pe *workflow.ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.wantParam, pe.Param)
			assert.ErrorIs(t, err, workflow.ErrInvalidParam)
			assert.Equal(t, workflow.TaskQuery{}, got)
		})
	}
}

func TestParseDefinitionQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query     string
		want      workflow.DefinitionQuery
		wantParam string
	}{
		{query: "", want: workflow.DefinitionQuery{Latest: true}},
		{query: "latest=false", want: workflow.DefinitionQuery{}},
		{query: "latest=true&key=loanProcess&start=10&size=5", want: workflow.DefinitionQuery{Latest: true, Key: "loanProcess", Start: 10, Size: 5}},
		{query: "latest=all", wantParam: "latest"},
		{query: "version=2", wantParam: "version"},
		{query: "size=0", wantParam: "size"},
		{query: "key=", wantParam: "key"},
	}
	for _, tt := range tests {
		q, err := url.ParseQuery(tt.query)
		require.NoError(t, err)
		got, err := workflow.ParseDefinitionQuery(q)
		if tt.wantParam == "" {
			require.NoError(t, err, tt.query)
			assert.Equal(t, tt.want, got, tt.query)
			continue
		}
		var pe *workflow.ParamError
		require.ErrorAs(t, err, &pe, tt.query)
		assert.Equal(t, tt.wantParam, pe.Param)
	}
}

func FuzzParseTaskQuery(f *testing.F) {
	for _, seed := range []string{
		"status=open&size=10&order=asc", "status=closed&candidate=gonzo", "size=1001", "size=+5",
		"order=desc&order=asc", "x=1", "assignee=%ff", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		tq, err := workflow.ParseTaskQuery(q)
		if err != nil {
			var pe *workflow.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParamError: %v", err)
			}
			return
		}
		if tq.Size < 0 || tq.Size > workflow.MaxSize || tq.Start < 0 {
			t.Fatalf("size %d, start %d accepted", tq.Size, tq.Start)
		}
		if tq.Status != "" && tq.Status != "open" && tq.Status != "closed" {
			t.Fatalf("status %q accepted", tq.Status)
		}
		if tq.Order != "" && tq.Order != "asc" && tq.Order != "desc" {
			t.Fatalf("order %q accepted", tq.Order)
		}
	})
}

func TestValidDisposition(t *testing.T) {
	t.Parallel()
	for _, d := range []string{"complete", "incomplete", "saveforlater"} {
		assert.True(t, workflow.ValidDisposition(d), d)
	}
	for _, d := range []string{"", "Complete", "save", "saveForLater", "complete "} {
		assert.False(t, workflow.ValidDisposition(d), d)
	}
}

// TestRefusedBeforeSending: bad input is a *ParamError and never reaches
// the engine.
func TestRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		call  func(context.Context, *workflow.Client) error
		param string
	}{
		{"empty task id", func(ctx context.Context, c *workflow.Client) error { _, err := c.Task(ctx, ""); return err }, "taskId"},
		{"dot-dot task id", func(ctx context.Context, c *workflow.Client) error { _, err := c.Task(ctx, ".."); return err }, "taskId"},
		{"slash in task id", func(ctx context.Context, c *workflow.Client) error { _, err := c.Task(ctx, "8/variables"); return err }, "taskId"},
		{"control in user", func(ctx context.Context, c *workflow.Client) error { _, err := c.User(ctx, "a\nb"); return err }, "username"},
		{"bad status", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.Tasks(ctx, workflow.TaskQuery{Status: "all"})
			return err
		}, "status"},
		{"bad size", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.Tasks(ctx, workflow.TaskQuery{Size: 5000})
			return err
		}, "size"},
		{"start without definition", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.StartProcess(ctx, workflow.StartRequest{BusinessKey: "b"})
			return err
		}, "processDefinitionId"},
		{"start with id and key", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionID: "a:1:1", ProcessDefinitionKey: "a"})
			return err
		}, "processDefinitionKey"},
		{"assign another field", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.Assign(ctx, "8", []byte(`{"assignee":"kermit","priority":100}`))
			return err
		}, "priority"},
		{"assign a number", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.Assign(ctx, "8", []byte(`{"owner":7}`))
			return err
		}, "owner"},
		{"assign not an object", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.Assign(ctx, "8", []byte(`["kermit"]`))
			return err
		}, "body"},
		{"assign nothing", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.Assign(ctx, "8", []byte(`{}`))
			return err
		}, "body"},
		{"claim without assignee", func(ctx context.Context, c *workflow.Client) error { return c.Claim(ctx, "8", "") }, "assignee"},
		{"bad disposition", func(ctx context.Context, c *workflow.Client) error { return c.Complete(ctx, "8", "done", nil) }, "disposition"},
		{"nameless variable", func(ctx context.Context, c *workflow.Client) error {
			return c.Complete(ctx, "8", "complete", []workflow.Variable{{Value: json.RawMessage(`1`)}})
		}, "variables"},
		{"a value its type does not take", func(ctx context.Context, c *workflow.Client) error {
			return c.Complete(ctx, "8", "complete", []workflow.Variable{{Name: "amount", Type: "integer", Value: json.RawMessage(`1.5`)}})
		}, `variable "amount"`},
		{"an unknown type", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionKey: "loanProcess",
				Variables: []workflow.Variable{{Name: "blob", Type: "serializable", Value: json.RawMessage(`"rO0AB"`)}}})
			return err
		}, `variable "blob"`},
		{"a date that is not one", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.StartProcess(ctx, workflow.StartRequest{ProcessDefinitionKey: "loanProcess",
				Variables: []workflow.Variable{{Name: "due", Type: "date", Value: json.RawMessage(`"17/04/2013"`)}}})
			return err
		}, `variable "due"`},
		{"unclaim of a bad id", func(ctx context.Context, c *workflow.Client) error { return c.Unclaim(ctx, "..") }, "taskId"},
		{"delegate to nobody", func(ctx context.Context, c *workflow.Client) error { return c.Delegate(ctx, "8", "") }, "assignee"},
		{"definitions of a bad size", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.ProcessDefinitions(ctx, workflow.DefinitionQuery{Size: -1})
			return err
		}, "size"},
		{"tasks from a negative start", func(ctx context.Context, c *workflow.Client) error {
			_, err := c.Tasks(ctx, workflow.TaskQuery{Start: -1})
			return err
		}, "start"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := strictEngine(t, expected{method: http.MethodGet, path: "/never"}, canned{500, ""}, &calls)
			c := workflow.New(srv.URL+"/flowable-rest/service", newDoer(), current())
			err := tt.call(context.Background(), c)
			var pe *workflow.ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.param, pe.Param)
			assert.Zero(t, calls.Load(), "nothing may be sent")
		})
	}
}
