package workflow_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
	engine "github.com/restgate/gateway/upstreams/workflow"
	"github.com/restgate/gateway/upstreams/workflow/workflowtest"
)

// TestEngineGenerations starts processes and completes tasks through the
// gateway's routes against fake engines of an old and the current
// release: the engine receives only types it converts, and a type it
// lacks is the client's 400 before anything is sent, naming its version.
func TestEngineGenerations(t *testing.T) {
	t.Parallel()
	const untyped = `[{"name":"amount","value":1.10},{"name":"big","value":123456789012345678901},` +
		`{"name":"due","value":"2013-04-17T10:17:43Z"},{"name":"ref","value":"123e4567-e89b-12d3-a456-426614174000"}]`
	tests := []struct {
		desc   string
		gen    workflowtest.Generation
		opts   engine.Options
		hide   int
		target string
		body   string
		status int
		code   string
		msg    string
		sent   string // the variables the engine receives
		reads  int
	}{
		{desc: "6.4.2: decimals and big integers are doubles", gen: workflowtest.Flowable642(),
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":` + untyped + `}`, status: 201, reads: 1,
			sent: `[{"name":"amount","type":"double","value":1.10},{"name":"big","type":"double","value":123456789012345678901},` +
				`{"name":"due","type":"string","value":"2013-04-17T10:17:43Z"},{"name":"ref","type":"string","value":"123e4567-e89b-12d3-a456-426614174000"}]`},
		{desc: "8.0.0: decimals and big integers keep their digits", gen: workflowtest.Flowable800(),
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":` + untyped + `}`, status: 201, reads: 1,
			sent: `[{"name":"amount","type":"bigDecimal","value":"1.10"},{"name":"big","type":"bigInteger","value":"123456789012345678901"},` +
				`{"name":"due","type":"string","value":"2013-04-17T10:17:43Z"},{"name":"ref","type":"string","value":"123e4567-e89b-12d3-a456-426614174000"}]`},
		{desc: "6.4.2: a bigDecimal is refused naming the version", gen: workflowtest.Flowable642(),
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"rate","type":"bigDecimal","value":"1.10"}]}`,
			status: 400, code: "PARAMETER_INVALID", reads: 1,
			msg: `variable "rate": type not converted: the workflow engine (version 6.5.0.1) has no type bigDecimal, which Flowable added in 7.2.0`},
		{desc: "6.4.2: a localDate is refused", gen: workflowtest.Flowable642(),
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"day","type":"localDate","value":"2013-04-17"}]}`,
			status: 400, code: "PARAMETER_INVALID", msg: "added in 6.5.0", reads: 1},
		{desc: "8.0.0: the java.time types and uuid are sent", gen: workflowtest.Flowable800(),
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"day","type":"localDate","value":"2013-04-17"},` +
				`{"name":"ref","type":"uuid","value":"123e4567-e89b-12d3-a456-426614174000"}]}`, status: 201, reads: 1,
			sent: `[{"name":"day","type":"localDate","value":"2013-04-17"},{"name":"ref","type":"uuid","value":"123e4567-e89b-12d3-a456-426614174000"}]`},
		{desc: "6.3.0: a completion's object is a string", gen: workflowtest.Flowable630(),
			target: "/v2/tasks/8/completions", body: `{"disposition":"complete","variables":[{"name":"profile","value":{"a":[1.5]}}]}`, status: 200, reads: 1,
			sent: `[{"name":"disposition","type":"string","value":"complete"},{"name":"profile","type":"string","value":"{\"a\":[1.5]}"}]`},
		{desc: "hidden version: the oldest types", gen: workflowtest.Flowable800(), hide: http.StatusForbidden,
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"amount","value":1.10}]}`, status: 201, reads: 1,
			sent: `[{"name":"amount","type":"double","value":1.10}]`},
		{desc: "pinned version: nothing read", gen: workflowtest.Flowable642(), hide: http.StatusNotFound, opts: pin(t, "6.4.2"),
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"amount","value":1.10},{"name":"p","value":{}}]}`,
			status: 201, sent: `[{"name":"amount","type":"double","value":1.10},{"name":"p","type":"json","value":{}}]`},
		{desc: "only portable variables: nothing read", gen: workflowtest.Flowable630(),
			target: "/v2/process-instances", body: `{"processDefinitionKey":"loanProcess","variables":[{"name":"n","value":3},{"name":"s","value":"x"}]}`,
			status: 201, sent: `[{"name":"n","type":"integer","value":3},{"name":"s","type":"string","value":"x"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			fake := workflowtest.NewEngine(t, tt.gen)
			fake.Hide(tt.hide)
			h := newGatewayWith(t, fake.URL(), basicDoer{handlertest.Client(t)}, tt.opts)
			a := do(t, h, request{method: "POST", target: tt.target, body: tt.body})
			assert.Equal(t, tt.status, a.Status, "%s", a.Raw)
			assert.Equal(t, tt.code, a.ResponseCode.ID, "%s", a.Raw)
			assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.msg)
			assert.Equal(t, tt.reads, fake.Reads())
			assert.Empty(t, fake.Refused())
			if tt.sent == "" {
				assert.Empty(t, fake.Accepted(), "nothing reaches the engine")
				return
			}
			require.Len(t, fake.Accepted(), 1)
			var b bytes.Buffer
			require.NoError(t, json.Compact(&b, fake.Accepted()[0]))
			assert.Equal(t, tt.sent, b.String())
		})
	}
}

func pin(t *testing.T, version string) engine.Options {
	t.Helper()
	o, errs := engine.ParseOptions(map[string]string{engine.OptionEngineVersion: version})
	require.Empty(t, errs)
	return o
}
