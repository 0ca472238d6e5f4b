package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/workflow/workflowtest"
)

// workflowHarness serves the start route against fake, through the shared
// upstream client (breaker, retries, credentials) with options.
func workflowHarness(t *testing.T, fake *workflowtest.Engine, options string) *harness {
	t.Helper()
	return newHarness(t, fmt.Sprintf(`
versions: [v1, v2]
upstreams:
  flow:
    url: %s
    retry: {attempts: 1}
    breaker: {consecutiveFailures: 2, openTimeout: 50ms}
    auth: {username: admin, password: test}
    options: {%s}
routes:
  - {path: "/{version}/process-instances", kind: workflow, action: startProcess, upstream: flow, methods: [POST]}
`, fake.URL(), options), nil)
}

func startLoan(t *testing.T, h *harness, variables string) int {
	t.Helper()
	rec, _ := h.do(t, http.MethodPost, "/v2/process-instances", `{"processDefinitionKey":"loanProcess","variables":`+variables+`}`, nil)
	return rec.Code
}

func lastAccepted(t *testing.T, fake *workflowtest.Engine) string {
	t.Helper()
	all := fake.Accepted()
	require.NotEmpty(t, all)
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, all[len(all)-1]))
	return b.String()
}

// The version is read at start (CheckVersions), once for every route of
// the upstream.
func TestWorkflowEngineVersionReadAtStart(t *testing.T) {
	t.Parallel()
	fake := workflowtest.NewEngine(t, workflowtest.Flowable642())
	h := workflowHarness(t, fake, "")
	h.gateway.CheckVersions(context.Background())
	require.Eventually(t, func() bool { return fake.Reads() == 1 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, http.StatusCreated, startLoan(t, h, `[{"name":"amount","value":1.10}]`))
	assert.Equal(t, `[{"name":"amount","type":"double","value":1.10}]`, lastAccepted(t, fake))
	assert.Equal(t, 1, fake.Reads())
}

// upstreams.<name>.options.engineVersion pins the version of an engine
// that hides it: nothing is read.
func TestWorkflowEngineVersionPinned(t *testing.T) {
	t.Parallel()
	fake := workflowtest.NewEngine(t, workflowtest.Flowable642())
	fake.Hide(http.StatusUnauthorized)
	h := workflowHarness(t, fake, `engineVersion: "6.4.2"`)
	h.gateway.CheckVersions(context.Background())
	require.Equal(t, http.StatusCreated, startLoan(t, h, `[{"name":"amount","value":1.10},{"name":"p","value":{"a":1}}]`))
	assert.Equal(t, `[{"name":"amount","type":"double","value":1.10},{"name":"p","type":"json","value":{"a":1}}]`, lastAccepted(t, fake))
	assert.Zero(t, fake.Reads())
}

// After the engine was lost (calls failed, the breaker opened), the first
// call that gets through reads the version again: the engine came back
// as another release.
func TestWorkflowEngineVersionReadAfterReconnect(t *testing.T) {
	t.Parallel()
	fake := workflowtest.NewEngine(t, workflowtest.Flowable800())
	h := workflowHarness(t, fake, "")
	amount := `[{"name":"amount","value":1.10}]`
	require.Equal(t, http.StatusCreated, startLoan(t, h, amount))
	assert.Equal(t, `[{"name":"amount","type":"bigDecimal","value":"1.10"}]`, lastAccepted(t, fake))

	fake.Down(true)
	assert.Equal(t, http.StatusBadGateway, startLoan(t, h, amount))
	assert.Equal(t, http.StatusBadGateway, startLoan(t, h, amount))
	assert.Equal(t, http.StatusServiceUnavailable, startLoan(t, h, amount), "the breaker is open")
	fake.Become(workflowtest.Flowable642())
	fake.Down(false)
	require.Eventually(t, func() bool { return startLoan(t, h, amount) == http.StatusCreated }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, `[{"name":"amount","type":"double","value":1.10}]`, lastAccepted(t, fake))
	assert.Equal(t, 2, fake.Reads())
	assert.Empty(t, fake.Refused(), "the old engine never saw a bigDecimal")
}
