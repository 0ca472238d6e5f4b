package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// Variable is one process variable as the engine takes it.
type Variable struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// Tasks lists tasks: open ones from GET /runtime/tasks, closed ones from
// GET /history/historic-task-instances?finished=true, and returns the
// engine's data array as it came. q is validated first (a *ParamError).
func (c *Client) Tasks(ctx context.Context, q TaskQuery) ([]byte, error) {
	if err := q.validate(); err != nil {
		return nil, err
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
func (c *Client) Claim(ctx context.Context, id, assignee string) error {
	if err := checkID("taskId", id); err != nil {
		return err
	}
	if err := checkID("assignee", assignee); err != nil {
		return err
	}
	body := struct {
		Action   string `json:"action"`
		Assignee string `json:"assignee"`
	}{"claim", assignee}
	_, err := c.call(ctx, http.MethodPost, taskPath(id), nil, body)
	return err
}

// Complete completes the task with the disposition variable first and the
// other variables after it (a "disposition" among them is dropped: the
// argument decides). disposition must satisfy ValidDisposition.
func (c *Client) Complete(ctx context.Context, id, disposition string, variables []Variable) error {
	if err := checkID("taskId", id); err != nil {
		return err
	}
	if !ValidDisposition(disposition) {
		return &ParamError{Param: "disposition", Value: disposition, Reason: "must be complete, incomplete or saveforlater"}
	}
	vars := make([]Variable, 0, len(variables)+1)
	vars = append(vars, Variable{Name: "disposition", Value: disposition})
	for _, v := range variables {
		if v.Name == "" {
			return &ParamError{Param: "variables", Reason: "every variable needs a name"}
		}
		if v.Name != "disposition" {
			vars = append(vars, v)
		}
	}
	body := struct {
		Action    string     `json:"action"`
		Variables []Variable `json:"variables"`
	}{"complete", vars}
	_, err := c.call(ctx, http.MethodPost, taskPath(id), nil, body)
	return err
}

func taskPath(id string) string { return "/runtime/tasks/" + url.PathEscape(id) }

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
