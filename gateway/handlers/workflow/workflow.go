// Package workflow serves the workflow routes of the public API (users,
// process definitions, process instances, tasks, claims, delegations and
// completions), forwarded to the workflow engine through upstreams/workflow.
// Each route of kind workflow names one action, and the action decides the
// one HTTP method the route serves.
//
// Nothing here is key-mapped: the engine's answers are returned as the
// adapter gives them (the writer still drops nulls when the version says
// so), except for the engine's links, which become gateway paths or go
// (links), and request bodies are the engine's vocabulary. Bodies are
// decoded strictly into the shape each action takes, then re-encoded by the
// adapter, so the engine receives exactly what the gateway validated and
// never a member it did not check. Lists carry the envelope's page member.
package workflow

import (
	"fmt"
	"net/http"

	"github.com/restgate/gateway/gateway/config"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	engine "github.com/restgate/gateway/upstreams/workflow"
)

// Path parameters the actions read.
const (
	paramUsername = "username"
	paramTaskID   = "taskId"
)

// operation is what one action serves: its method (a route of the action
// must list exactly this one; the router refuses any other), the path
// parameters its template must have, and the handler.
type operation struct {
	method string
	params []string
	serve  func(h handlers, r *http.Request, c *call.Call) (call.Result, error)
}

func operations() map[string]operation {
	return map[string]operation{
		config.ActionUser:               {http.MethodGet, []string{paramUsername}, handlers.user},
		config.ActionProcessDefinitions: {http.MethodGet, nil, handlers.processDefinitions},
		config.ActionStartProcess:       {http.MethodPost, nil, handlers.startProcess},
		config.ActionTasks:              {http.MethodGet, nil, handlers.tasks},
		config.ActionTask:               {http.MethodGet, []string{paramTaskID}, handlers.task},
		config.ActionAssign:             {http.MethodPut, []string{paramTaskID}, handlers.assign},
		config.ActionClaim:              {http.MethodPost, []string{paramTaskID}, handlers.claim},
		config.ActionUnclaim:            {http.MethodDelete, []string{paramTaskID}, handlers.unclaim},
		config.ActionDelegate:           {http.MethodPost, []string{paramTaskID}, handlers.delegate},
		config.ActionComplete:           {http.MethodPost, []string{paramTaskID}, handlers.complete},
	}
}

// New returns the factory of kind workflow. The route's action picks the
// operation:
//
//	user               GET    {username}        the engine's user; unknown: 404
//	processDefinitions GET                      key, latest (default true), start, size -> the definitions, paged
//	startProcess       POST                     body {processDefinitionId | processDefinitionKey,
//	                                            businessKey?, variables?} -> 201, the instance
//	tasks              GET                      status, candidate, candidateGroup, assignee, unassigned,
//	                                            taskDefinitionKey, description, processInstanceId,
//	                                            processInstanceBusinessKey, includeProcessVariables, order,
//	                                            start, size -> the tasks, paged
//	task               GET    {taskId}          one open task
//	assign             PUT    {taskId}          body {assignee?, owner?} (string or null) -> the task
//	claim              POST   {taskId}          body optional {assignee?}, default the caller -> ""
//	unclaim            DELETE {taskId}          -> "" (the task is unassigned after)
//	delegate           POST   {taskId}          body {assignee} -> ""
//	complete           POST   {taskId}          body {disposition, variables?} -> ""
//
// Variables are {name, type?, value} (see upstreams/workflow.Variable). A
// record's url becomes the gateway path of the route of action task or
// user in table, in the request's version; the engine's other links are
// removed. maxDepth bounds the nesting of request bodies
// (server.limits.maxJSONDepth). The factory fails when the action is
// unknown, the template lacks the parameter the action reads, or the
// upstream has no client.
func New(clients router.Resolver[*engine.Client], table *routes.Table, maxDepth int) router.Factory {
	l := newLinks(table)
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		op, ok := operations()[rt.Spec.Action]
		if !ok {
			return nil, fmt.Errorf("action %q is not a workflow action", rt.Spec.Action)
		}
		if err := rt.CheckParams(op.params); err != nil {
			return nil, err
		}
		client, err := clients.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		h := handlers{client: client, maxDepth: maxDepth, links: l}
		return map[string]call.Handler{op.method: func(r *http.Request, c *call.Call) (call.Result, error) {
			return op.serve(h, r, c)
		}}, nil
	}
}
