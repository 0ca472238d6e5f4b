package workflow_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/workflow"
)

// newServerOf starts an engine of version on a fresh database.
func newServerOf(t *testing.T, version string) *httptest.Server {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := workflow.NewWithOptions(db, workflow.Options{Version: version})
	require.NoError(t, err)
	return serve(t, h)
}

func TestEngineInfo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ version, want string }{{"", "8.0.0"}, {"6.5.0.1", "6.5.0.1"}} {
		status, raw := send(t, newServerOf(t, tt.version), http.MethodGet, "/management/engine", "")
		require.Equal(t, http.StatusOK, status)
		assert.JSONEq(t, `{"name":"default","resourceUrl":null,"exception":null,"version":"`+tt.want+`"}`, string(raw))
	}
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = workflow.NewWithOptions(db, workflow.Options{Version: "latest"})
	assert.ErrorContains(t, err, `not a Flowable engine version: "latest"`)
}

// An older engine refuses the types it has no converter for, and reads
// dates as Jackson's ISO8601DateFormat does.
func TestOlderEngineVariables(t *testing.T) {
	t.Parallel()
	srv := newServerOf(t, "6.5.0.1") // 6.4.2
	for _, tt := range []struct {
		variable string
		status   int
		body     string
	}{
		{`{"name":"v","type":"bigDecimal","value":"1.10"}`, 400,
			`{"message":"Bad request","exception":"Variable 'v' has unsupported type: 'bigDecimal'."}`},
		{`{"name":"v","type":"instant","value":null}`, 400,
			`{"message":"Bad request","exception":"Variable 'v' has unsupported type: 'instant'."}`},
		{`{"name":"v","type":"date","value":"2013-04-17T10:17"}`, 400,
			`{"message":"Bad request","exception":"The given variable value is not a date: '2013-04-17T10:17'"}`},
		{`{"name":"v","type":"date","value":"2013-04-17T10:17:43.9+0200"}`, 201, ""},
		{`{"name":"v","type":"json","value":{"a":1}}`, 201, ""},
	} {
		status, raw := send(t, srv, http.MethodPost, "/runtime/process-instances",
			`{"processDefinitionKey":"loanProcess","variables":[`+tt.variable+`]}`)
		assert.Equal(t, tt.status, status, tt.variable)
		if tt.body != "" {
			assert.JSONEq(t, tt.body, string(raw), tt.variable)
		}
	}
}
