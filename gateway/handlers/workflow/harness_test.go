package workflow_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/gateway/handlers/workflow"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
	sandboxworkflow "github.com/restgate/gateway/upstreams/sandbox/workflow"
	engine "github.com/restgate/gateway/upstreams/workflow"
	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// defaultUser is the caller when a request names none.
const defaultUser = "kermit"

// Engine credentials the test doer sends, as the shared client would from
// upstreams.workflow.auth.
const (
	engineUser     = "admin"
	enginePassword = "test"
)

// workflowRoutes are the workflow routes as config.yaml declares them.
func workflowRoutes() []config.Route {
	r := func(path, action, method, summary string) config.Route {
		return config.Route{Path: path, Kind: config.KindWorkflow, Action: action, Methods: []string{method},
			Upstream: "workflow", Summary: summary}
	}
	return []config.Route{
		r("/{version}/users/{username}", "user", "GET", "A workflow user"),
		r("/{version}/process-definitions", "processDefinitions", "GET", "Lists process definitions"),
		r("/{version}/process-instances", "startProcess", "POST", "Starts a process instance"),
		r("/{version}/tasks", "tasks", "GET", "Lists open or closed tasks"),
		r("/{version}/tasks/{taskId}", "task", "GET", "One open task"),
		r("/{version}/tasks/{taskId}", "assign", "PUT", "Sets a task's assignee and owner"),
		r("/{version}/tasks/{taskId}/claims", "claim", "POST", "Claims a task"),
		r("/{version}/tasks/{taskId}/claims", "unclaim", "DELETE", "Releases a task"),
		r("/{version}/tasks/{taskId}/delegations", "delegate", "POST", "Delegates a task"),
		r("/{version}/tasks/{taskId}/completions", "complete", "POST", "Completes a task"),
	}
}

func testConfig() *config.Config {
	cfg := &config.Config{
		Versions:  []string{"v1", "v2"},
		Upstreams: map[string]upstreams.Settings{"workflow": {URL: "http://unused"}},
		Routes:    workflowRoutes(),
	}
	config.Defaults(cfg)
	return cfg
}

// basicDoer adds the engine credentials, as the shared client does.
type basicDoer struct{ c *http.Client }

func (d basicDoer) Do(req *http.Request) (*http.Response, error) {
	req.SetBasicAuth(engineUser, enginePassword)
	return d.c.Do(req)
}

// newGateway serves the workflow routes against the engine at baseURL,
// through the real router, writer and trace middleware. The engine's
// version is pinned to the current one, so that each call sends exactly
// the request under test.
func newGateway(tb testing.TB, baseURL string) http.Handler {
	tb.Helper()
	return newGatewayOn(tb, baseURL, basicDoer{handlertest.Client(tb)})
}

// newGatewayOn is newGateway sending through doer, which adds the
// credentials.
func newGatewayOn(tb testing.TB, baseURL string, doer upstreams.Doer) http.Handler {
	tb.Helper()
	v, err := restvar.ParseVersion(restvar.CurrentRelease)
	require.NoError(tb, err)
	return newGatewayWith(tb, baseURL, doer, engine.Options{EngineVersion: v})
}

// newGatewayWith is newGatewayOn with the adapter's opts.
func newGatewayWith(tb testing.TB, baseURL string, doer upstreams.Doer, opts engine.Options) http.Handler {
	tb.Helper()
	cfg := testConfig()
	client := engine.New(baseURL, doer, opts)
	resolve := handlertest.Only("workflow", client)
	h, _ := handlertest.Router(tb, cfg, false, func(table *routes.Table) map[string]router.Factory {
		return map[string]router.Factory{config.KindWorkflow: workflow.New(resolve, table, cfg.Server.Limits.MaxJSONDepth)}
	})
	return middleware.Trace(handlertest.WithIdentity(h, defaultUser), time.Now)
}

// newSandbox serves the reference engine on a fresh database.
func newSandbox(tb testing.TB) string {
	tb.Helper()
	url, _ := handlertest.Sandbox(tb, tb.TempDir(), sandboxworkflow.New)
	return url
}

// request is one client request to the gateway; user "" is defaultUser.
type request struct {
	method, target, body, user string
}

func do(tb testing.TB, h http.Handler, req request) handlertest.Answer {
	tb.Helper()
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	r := httptest.NewRequest(req.method, req.target, body)
	if req.user != "" {
		r.Header.Set(handlertest.UserHeader, req.user)
	}
	return handlertest.Do(tb, h, r)
}

// field reads one string member of an object result.
func field(tb testing.TB, raw []byte, name string) string {
	tb.Helper()
	var m map[string]any
	require.NoError(tb, json.Unmarshal(raw, &m), "result: %s", raw)
	s, _ := m[name].(string)
	return s
}
