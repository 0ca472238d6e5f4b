package workflow_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/gateway/handlers/workflow"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	engine "github.com/restgate/gateway/upstreams/workflow"
)

func TestFactory(t *testing.T) {
	t.Parallel()
	client := engine.New("http://engine.invalid", http.DefaultClient, engine.Options{})
	some := handlertest.Only("workflow", client)
	none := handlertest.Only("another", client)
	tests := []struct {
		desc     string
		template string
		action   string
		clients  router.Resolver[*engine.Client]
		method   string
		err      string
	}{
		{desc: "user", template: "/{version}/users/{username}", action: "user", clients: some, method: "GET"},
		{desc: "start", template: "/{version}/process-instances", action: "startProcess", clients: some, method: "POST"},
		{desc: "assign", template: "/{version}/tasks/{taskId}", action: "assign", clients: some, method: "PUT"},
		{desc: "claim", template: "/{version}/tasks/{taskId}/claims", action: "claim", clients: some, method: "POST"},
		{desc: "unclaim", template: "/{version}/tasks/{taskId}/claims", action: "unclaim", clients: some, method: "DELETE"},
		{desc: "delegate", template: "/{version}/tasks/{taskId}/delegations", action: "delegate", clients: some, method: "POST"},
		{desc: "unknown action", template: "/{version}/tasks", action: "resolve", clients: some,
			err: `action "resolve" is not a workflow action`},
		{desc: "template without the task id", template: "/{version}/tasks/{id}", action: "task", clients: some,
			err: "action task reads the path parameter {taskId}, which /{version}/tasks/{id} lacks"},
		{desc: "template without the user name", template: "/{version}/users/{id}", action: "user", clients: some,
			err: "{username}"},
		{desc: "upstream without a client", template: "/{version}/tasks", action: "tasks", clients: none,
			err: `upstream "workflow": no upstream named "workflow"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			rt := &routes.Route{Template: tt.template, Spec: config.Route{Path: tt.template, Kind: config.KindWorkflow,
				Action: tt.action, Upstream: "workflow"}}
			handlers, err := workflow.New(tt.clients, nil, 64)(rt)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, handlers, 1)
			assert.Contains(t, handlers, tt.method)
		})
	}
}

// TestMethodOfEveryAction: each shipped route lists the one method its
// action serves.
func TestMethodOfEveryAction(t *testing.T) {
	t.Parallel()
	client := engine.New("http://engine.invalid", http.DefaultClient, engine.Options{})
	for _, r := range workflowRoutes() {
		rt := &routes.Route{Template: r.Path, Spec: r}
		handlers, err := workflow.New(handlertest.Only(r.Upstream, client), nil, 64)(rt)
		require.NoError(t, err, r.Action)
		require.Len(t, handlers, 1, r.Action)
		assert.Contains(t, handlers, r.Methods[0], r.Action)
	}
}
