package workflow_test

import (
	"context"
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
		{desc: "unknown status", query: "status=done", wantParam: "status"},
		{desc: "status case matters", query: "status=OPEN", wantParam: "status"},
		{desc: "size zero", query: "size=0", wantParam: "size"},
		{desc: "size too big", query: "size=1001", wantParam: "size"},
		{desc: "size not a number", query: "size=ten", wantParam: "size"},
		{desc: "size with sign", query: "size=-5", wantParam: "size"},
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
		if tq.Size < 0 || tq.Size > workflow.MaxSize {
			t.Fatalf("size %d accepted", tq.Size)
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
			return c.Complete(ctx, "8", "complete", []workflow.Variable{{Value: 1}})
		}, "variables"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			srv := strictEngine(t, expected{method: http.MethodGet, path: "/never"}, canned{500, ""}, &calls)
			c := workflow.New(srv.URL+"/flowable-rest/service", newDoer())
			err := tt.call(context.Background(), c)
			var pe *workflow.ParamError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.param, pe.Param)
			assert.Zero(t, calls.Load(), "nothing may be sent")
		})
	}
}
