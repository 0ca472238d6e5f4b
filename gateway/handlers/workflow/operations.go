package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/upstreams"
	engine "github.com/restgate/gateway/upstreams/workflow"
)

// handlers serve the actions of one route.
type handlers struct {
	client   *engine.Client
	maxDepth int
	links    links
}

func (h handlers) user(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.client.User(r.Context(), router.Param(r, paramUsername))
	return record(body, err, envelope.SObjectOperationFailed, h.links.userPath(c.Version))
}

func (h handlers) processDefinitions(r *http.Request, _ *call.Call) (call.Result, error) {
	q, err := call.ParseQuery(r)
	if err != nil {
		return call.Result{}, err
	}
	dq, err := engine.ParseDefinitionQuery(q)
	if err != nil {
		return call.Result{}, fail(err, envelope.QueryOperationFailed)
	}
	list, err := h.client.ProcessDefinitions(r.Context(), dq)
	return listResult(r, q, list, dq.Size, err, none)
}

func (h handlers) startProcess(r *http.Request, c *call.Call) (call.Result, error) {
	var req engine.StartRequest
	if err := readObject(r, c, h.maxDepth, &req, true); err != nil {
		return call.Result{}, err
	}
	body, err := h.client.StartProcess(r.Context(), req)
	res, err := record(body, err, envelope.SObjectOperationFailed, none)
	res.Status = http.StatusCreated
	return res, err
}

func (h handlers) tasks(r *http.Request, c *call.Call) (call.Result, error) {
	q, err := call.ParseQuery(r)
	if err != nil {
		return call.Result{}, err
	}
	tq, err := engine.ParseTaskQuery(q)
	if err != nil {
		return call.Result{}, fail(err, envelope.QueryOperationFailed)
	}
	list, err := h.client.Tasks(r.Context(), tq)
	link := h.links.taskPath(c.Version)
	if tq.Status == "closed" {
		link = none // the task route serves open tasks only
	}
	return listResult(r, q, list, tq.Size, err, link)
}

func (h handlers) task(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.client.Task(r.Context(), router.Param(r, paramTaskID))
	return record(body, err, envelope.SObjectOperationFailed, h.links.taskPath(c.Version))
}

// assignment is the body of assign. A member absent stays as it is on the
// task and null clears it, so presence is kept: nil is absent, "null" is
// null.
type assignment struct {
	Assignee json.RawMessage `json:"assignee"`
	Owner    json.RawMessage `json:"owner"`
}

func (h handlers) assign(r *http.Request, c *call.Call) (call.Result, error) {
	var a assignment
	if err := readObject(r, c, h.maxDepth, &a, true); err != nil {
		return call.Result{}, err
	}
	members := make(map[string]json.RawMessage, 2)
	for _, m := range []struct {
		name string
		raw  json.RawMessage
	}{{"assignee", a.Assignee}, {"owner", a.Owner}} {
		if m.raw == nil {
			continue
		}
		if !stringOrNull(m.raw) {
			return call.Result{}, bodyError(fmt.Sprintf("member %q must be a string or null", m.name))
		}
		members[m.name] = m.raw
	}
	if len(members) == 0 {
		return call.Result{}, envelope.InvalidParameter("assignee", "give assignee, owner or both")
	}
	fields, err := json.Marshal(members)
	if err != nil {
		return call.Result{}, err
	}
	body, err := h.client.Assign(r.Context(), router.Param(r, paramTaskID), fields)
	return record(body, err, envelope.SObjectOperationFailed, h.links.taskPath(c.Version))
}

// claimRequest is the optional body of claim; a missing or null assignee
// is the caller.
type claimRequest struct {
	Assignee *string `json:"assignee"`
}

func (h handlers) claim(r *http.Request, c *call.Call) (call.Result, error) {
	var req claimRequest
	if err := readObject(r, c, h.maxDepth, &req, false); err != nil {
		return call.Result{}, err
	}
	assignee := c.Identity.UserID
	if req.Assignee != nil {
		assignee = *req.Assignee
	}
	err := h.client.Claim(r.Context(), router.Param(r, paramTaskID), assignee)
	return call.Result{}, fail(err, envelope.SObjectOperationFailed)
}

func (h handlers) unclaim(r *http.Request, _ *call.Call) (call.Result, error) {
	err := h.client.Unclaim(r.Context(), router.Param(r, paramTaskID))
	return call.Result{}, fail(err, envelope.SObjectOperationFailed)
}

// delegation is the body of delegate.
type delegation struct {
	Assignee *string `json:"assignee"`
}

func (h handlers) delegate(r *http.Request, c *call.Call) (call.Result, error) {
	var req delegation
	if err := readObject(r, c, h.maxDepth, &req, true); err != nil {
		return call.Result{}, err
	}
	if req.Assignee == nil {
		return call.Result{}, envelope.InvalidParameter("assignee", "name the user to delegate the task to")
	}
	err := h.client.Delegate(r.Context(), router.Param(r, paramTaskID), *req.Assignee)
	return call.Result{}, fail(err, envelope.SObjectOperationFailed)
}

// completion is the body of complete. Disposition is decoded as any value
// so that a number or null is the same PARAMETER_INVALID as a wrong word.
type completion struct {
	Disposition any               `json:"disposition"`
	Variables   []engine.Variable `json:"variables"`
}

func (h handlers) complete(r *http.Request, c *call.Call) (call.Result, error) {
	var req completion
	if err := readObject(r, c, h.maxDepth, &req, true); err != nil {
		return call.Result{}, err
	}
	disposition, _ := req.Disposition.(string)
	if !engine.ValidDisposition(disposition) {
		return call.Result{}, envelope.InvalidParameter("disposition", "must be complete, incomplete or saveforlater")
	}
	err := h.client.Complete(r.Context(), router.Param(r, paramTaskID), disposition, req.Variables)
	return call.Result{}, fail(err, envelope.SObjectOperationFailed)
}

// record is the answer of an action that returns one engine record, its
// links rewritten by s.
func record(body []byte, err error, rejectedID string, s self) (call.Result, error) {
	if err != nil {
		return call.Result{}, fail(err, rejectedID)
	}
	out, err := rewrite(body, s)
	if err != nil {
		return call.Result{}, call.Upstream(invalid(err), rejectedID)
	}
	return call.Result{JSON: out}, nil
}

// listResult is the answer of a list: its items, links rewritten by s, and
// the page member.
func listResult(r *http.Request, q map[string][]string, list engine.List, size int, err error, s self) (call.Result, error) {
	if err != nil {
		return call.Result{}, fail(err, envelope.QueryOperationFailed)
	}
	out, err := rewriteList(list.Data, s)
	if err != nil {
		return call.Result{}, call.Upstream(invalid(err), envelope.QueryOperationFailed)
	}
	return call.Result{JSON: out, Page: page(r, q, list, size), SizeParam: "size"}, nil
}

// invalid is the upstream error of an engine answer the gateway cannot
// read.
func invalid(err error) error {
	return &upstreams.Error{Upstream: engine.Upstream, Kind: upstreams.KindInvalid, Err: err}
}

// fail converts an adapter error: input the adapter refused before calling
// the engine is PARAMETER_INVALID naming the parameter; the engine's
// rejection is rejectedID with the engine's status, and a 403, the engine
// refusing the operation itself (engine.BusinessRefusal), tells the client
// the engine's reason (as every rejection does); the rest is CALLOUT_FAILED
// (call.Upstream).
func fail(err error, rejectedID string) error {
	if err == nil {
		return nil
	}
	var pe *engine.ParamError
	if errors.As(err, &pe) {
		e := envelope.InvalidParameter(pe.Param, pe.Reason)
		e.Cause = err
		return e
	}
	return call.Upstream(err, rejectedID)
}
