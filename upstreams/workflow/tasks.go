package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/restgate/gateway/upstreams"
)

// Tasks lists one page of tasks: open ones from GET /runtime/tasks, closed
// ones from GET /history/historic-task-instances?finished=true. q is
// validated first (a *ParamError).
func (c *Client) Tasks(ctx context.Context, q TaskQuery) (List, error) {
	if err := q.validate(); err != nil {
		return List{}, err
	}
	path, values := q.values()
	return c.getList(ctx, path, values)
}

// Task returns one open task (GET /runtime/tasks/{id}); an unknown or
// finished task is a 404 *upstreams.Error.
func (c *Client) Task(ctx context.Context, id string) ([]byte, error) {
	if err := checkID("taskId", id); err != nil {
		return nil, err
	}
	return c.object(ctx, http.MethodGet, taskPath(id), nil)
}

// Assign changes the task's assignee and owner (PUT /runtime/tasks/{id})
// and returns the updated task. body is a JSON object with only "assignee"
// and "owner", each a string or null; only the members present change and
// null clears one. Any other member is a *ParamError, because the engine
// would apply it (name, priority, tenantId ...) on an assignment route.
func (c *Client) Assign(ctx context.Context, id string, body []byte) ([]byte, error) {
	if err := checkID("taskId", id); err != nil {
		return nil, err
	}
	fields, err := assignment(body)
	if err != nil {
		return nil, err
	}
	return c.object(ctx, http.MethodPut, taskPath(id), fields)
}

// Claim makes assignee the holder of the task (POST /runtime/tasks/{id}
// with action claim). Claiming a task that another user holds is a 409
// *upstreams.Error; claiming it again as its holder succeeds.
//
// Two claims racing for one unassigned task both find it free; the one
// that writes second fails on the engine's optimistic lock, which the
// engine answers 500. Claim then reads the task again: held by another
// user it is the 409 the caller would have got a moment later, held by
// assignee it is a success, and in both cases the 500 is not the engine
// failing, so the shared client's breaker does not count it
// (upstreams.WithFailureCheck). Otherwise the 500 stands.
func (c *Client) Claim(ctx context.Context, id, assignee string) error {
	if err := checkID("taskId", id); err != nil {
		return err
	}
	if err := checkID("assignee", assignee); err != nil {
		return err
	}
	var holder string
	checked := false
	readHolder := func() {
		checked = true
		holder = c.holder(ctx, id)
	}
	check := upstreams.WithFailureCheck(ctx, func(e *upstreams.Error) bool {
		if e.Status != http.StatusInternalServerError {
			return false
		}
		readHolder()
		return holder != ""
	})
	err := c.action(check, id, taskAction{Action: "claim", Assignee: &assignee})
	ue := upstreams.AsError(err)
	if ue == nil || ue.Status != http.StatusInternalServerError {
		return err
	}
	if !checked { // a Doer without the shared client's check
		readHolder()
	}
	switch holder {
	case "":
		return err
	case assignee:
		return nil
	}
	return &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindRejected, Status: http.StatusConflict,
		Message: fmt.Sprintf("Task was already claimed: Task '%s' is already claimed by someone else (a concurrent claim won).", id),
		Err:     err}
}

// holder is the task's assignee as the engine has it now, "" when the task
// is unassigned or cannot be read.
func (c *Client) holder(ctx context.Context, id string) string {
	raw, err := c.object(ctx, http.MethodGet, taskPath(id), nil)
	if err != nil {
		return ""
	}
	var task struct {
		Assignee *string `json:"assignee"`
	}
	if json.Unmarshal(raw, &task) != nil || task.Assignee == nil {
		return ""
	}
	return *task.Assignee
}

// Unclaim releases the task (action unclaim): it is unassigned afterwards,
// whoever held it; releasing an unassigned task changes nothing.
func (c *Client) Unclaim(ctx context.Context, id string) error {
	if err := checkID("taskId", id); err != nil {
		return err
	}
	return c.action(ctx, id, taskAction{Action: "unclaim"})
}

// Delegate hands the task to assignee (action delegate): the engine makes
// the current assignee the owner when it has none, assignee the assignee,
// and marks the delegation pending.
func (c *Client) Delegate(ctx context.Context, id, assignee string) error {
	if err := checkID("taskId", id); err != nil {
		return err
	}
	if err := checkID("assignee", assignee); err != nil {
		return err
	}
	return c.action(ctx, id, taskAction{Action: "delegate", Assignee: &assignee})
}

// Complete completes the task with the disposition variable first and the
// other variables after it (a "disposition" among them is dropped: the
// argument decides), each sent with its type, as the engine's version
// converts it (see Client and Variable).
// disposition must satisfy ValidDisposition.
func (c *Client) Complete(ctx context.Context, id, disposition string, variables []Variable) error {
	if err := checkID("taskId", id); err != nil {
		return err
	}
	if !ValidDisposition(disposition) {
		return &ParamError{Param: "disposition", Value: disposition, Reason: "must be complete, incomplete or saveforlater"}
	}
	rest := make([]Variable, 0, len(variables))
	for _, v := range variables {
		if v.Name != "disposition" {
			rest = append(rest, v)
		}
	}
	vars := append([]Variable{{Name: "disposition", Type: "string", Value: mustJSON(disposition)}}, rest...)
	return c.sendTyped(ctx, vars, func(vars []Variable) error {
		return c.action(ctx, id, taskAction{Action: "complete", Variables: vars})
	})
}

// taskAction is the body of POST /runtime/tasks/{id} (TaskActionRequest).
type taskAction struct {
	Action    string     `json:"action"`
	Assignee  *string    `json:"assignee,omitempty"`
	Variables []Variable `json:"variables,omitempty"`
}

// action posts a task action; success is 200 with an empty body.
func (c *Client) action(ctx context.Context, id string, a taskAction) error {
	_, err := c.call(ctx, http.MethodPost, taskPath(id), nil, a, nil)
	return err
}

func taskPath(id string) string { return "/runtime/tasks/" + url.PathEscape(id) }

func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// assignment checks an assign body and returns the members to send.
func assignment(body []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return nil, &ParamError{Param: "body", Value: string(body), Reason: "must be a JSON object with assignee and/or owner"}
	}
	if len(fields) == 0 {
		return nil, &ParamError{Param: "body", Value: string(body), Reason: "must name assignee and/or owner"}
	}
	for name, raw := range fields {
		if name != "assignee" && name != "owner" {
			return nil, &ParamError{Param: name, Value: string(raw), Reason: "only assignee and owner can be set"}
		}
		if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, &ParamError{Param: name, Value: string(raw), Reason: "must be a string or null"}
		}
		if err := checkID(name, s); err != nil {
			return nil, err
		}
	}
	return fields, nil
}
