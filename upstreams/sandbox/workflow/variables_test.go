package workflow_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/workflow"
)

// TestVariableTypes starts an instance with one variable and reads it back
// from its task, as the engine converts and writes it: without a type as
// Jackson read the JSON (a decimal a double, an object a serialised map),
// with one through that type's converter, mistakes included.
func TestVariableTypes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		desc     string
		variable string
		status   int
		want     string // the variable as the task carries it
	}{
		{"untyped decimal is a double", `{"name":"v","value":1.10}`, 201, `{"name":"v","type":"double","value":1.1,"scope":"global"}`},
		{"untyped integer", `{"name":"v","value":12}`, 201, `{"name":"v","type":"integer","value":12,"scope":"global"}`},
		{"untyped long", `{"name":"v","value":4294967296}`, 201, `{"name":"v","type":"long","value":4294967296,"scope":"global"}`},
		{"untyped date stays a string", `{"name":"v","value":"2013-04-17T10:17:43.902Z"}`, 201,
			`{"name":"v","type":"string","value":"2013-04-17T10:17:43.902Z","scope":"global"}`},
		{"untyped object is serialised", `{"name":"v","value":{"a":1}}`, 201, `{"name":"v","type":"serializable","value":null,` +
			`"valueUrl":"{task}/variables/v/data","scope":"global"}`},
		{"untyped null", `{"name":"v","value":null}`, 201, `{"name":"v","value":null,"scope":"global"}`},
		{"bigDecimal from a string keeps its digits", `{"name":"v","type":"bigDecimal","value":"1.10"}`, 201,
			`{"name":"v","type":"bigDecimal","value":"1.10","scope":"global"}`},
		{"bigDecimal from a number goes through a double", `{"name":"v","type":"bigDecimal","value":1.10}`, 201,
			`{"name":"v","type":"bigDecimal","value":"1.1","scope":"global"}`},
		{"bigDecimal with an exponent", `{"name":"v","type":"bigDecimal","value":"1e3"}`, 201,
			`{"name":"v","type":"bigDecimal","value":"1000","scope":"global"}`},
		{"bigInteger", `{"name":"v","type":"bigInteger","value":"12345678901234567890"}`, 201,
			`{"name":"v","type":"bigInteger","value":"12345678901234567890","scope":"global"}`},
		{"integer truncates", `{"name":"v","type":"integer","value":1.9}`, 201, `{"name":"v","type":"integer","value":1,"scope":"global"}`},
		{"double", `{"name":"v","type":"double","value":2}`, 201, `{"name":"v","type":"double","value":2.0,"scope":"global"}`},
		{"date", `{"name":"v","type":"date","value":"2013-04-17T12:17:43.902+02:00"}`, 201,
			`{"name":"v","type":"date","value":"2013-04-17T10:17:43.902Z","scope":"global"}`},
		{"date of a day", `{"name":"v","type":"date","value":"2013-04-17"}`, 201,
			`{"name":"v","type":"date","value":"2013-04-17T00:00:00Z","scope":"global"}`},
		{"localDateTime", `{"name":"v","type":"localDateTime","value":"2013-04-17T10:17:00"}`, 201,
			`{"name":"v","type":"localDateTime","value":"2013-04-17T10:17","scope":"global"}`},
		{"json", `{"name":"v","type":"json","value":{"a":[1.10]}}`, 201, `{"name":"v","type":"json","value":{"a":[1.10]},"scope":"global"}`},
		{"uuid", `{"name":"v","type":"uuid","value":"123E4567-E89B-12D3-A456-426614174000"}`, 201,
			`{"name":"v","type":"uuid","value":"123e4567-e89b-12d3-a456-426614174000","scope":"global"}`},
		{"a date that is not one", `{"name":"v","type":"date","value":"17/04/2013"}`, 400,
			`{"message":"Bad request","exception":"The given variable value is not a date: '17/04/2013'"}`},
		{"a string of a number", `{"name":"v","type":"integer","value":"12"}`, 400,
			`{"message":"Bad request","exception":"Converter can only convert integers"}`},
		{"an unknown type", `{"name":"v","type":"color","value":"red"}`, 400,
			`{"message":"Bad request","exception":"Variable 'v' has unsupported type: 'color'."}`},
		{"a bigInteger that is not one", `{"name":"v","type":"bigInteger","value":1.5}`, 500, `{"message":"Internal server error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			status, raw := send(t, srv, http.MethodPost, "/runtime/process-instances",
				`{"processDefinitionKey":"loanProcess","variables":[`+tt.variable+`]}`)
			require.Equal(t, tt.status, status, string(raw))
			if status != http.StatusCreated {
				assert.JSONEq(t, tt.want, string(raw))
				return
			}
			instance := decode(t, raw)["id"].(string)
			status, raw = send(t, srv, http.MethodGet, "/runtime/tasks?includeProcessVariables=true&processInstanceId="+instance, "")
			require.Equal(t, http.StatusOK, status, string(raw))
			var list struct {
				Data []struct {
					URL       string            `json:"url"`
					Variables []json.RawMessage `json:"variables"`
				} `json:"data"`
			}
			require.NoError(t, json.Unmarshal(raw, &list))
			require.Len(t, list.Data, 1)
			require.Len(t, list.Data[0].Variables, 1)
			want := tt.want
			if task := list.Data[0].URL; task != "" {
				want = strings.ReplaceAll(want, "{task}", task)
			}
			assert.JSONEq(t, want, string(list.Data[0].Variables[0]))
			status, raw = send(t, srv, http.MethodGet, "/runtime/tasks?processInstanceId="+instance, "")
			require.Equal(t, http.StatusOK, status)
			assert.Contains(t, string(raw), `"variables":[]`, "variables only when asked for")
		})
	}
}

// TestCandidates: a user is a candidate of a task offered to one of the
// user's groups; candidateGroup, the business key and unassigned filter
// as the engine does.
func TestCandidates(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	instance, taskID := startLoan(t, srv)
	for _, tt := range []struct {
		query string
		total int
	}{
		{"candidateUser=piggy", 1}, // through the management group
		{"candidateUser=gonzo", 1}, // named on the task
		{"candidateUser=nobody", 0},
		{"candidateGroup=management", 1},
		{"candidateGroup=admin", 0},
		{"processInstanceBusinessKey=loan-1", 1},
		{"processInstanceBusinessKey=loan-2", 0},
		{"unassigned=false", 1}, // the engine reads the parameter's presence
		{"processInstanceId=" + instance, 1},
	} {
		status, raw := send(t, srv, http.MethodGet, "/runtime/tasks?"+tt.query, "")
		require.Equal(t, http.StatusOK, status, string(raw))
		assert.EqualValues(t, tt.total, decode(t, raw)["total"], tt.query)
	}
	status, raw := send(t, srv, http.MethodPost, "/runtime/tasks/"+taskID, `{"action":"claim","assignee":"kermit"}`)
	require.Equal(t, http.StatusOK, status, string(raw))
	for _, q := range []string{"candidateUser=piggy", "candidateGroup=management", "unassigned=true"} {
		_, raw = send(t, srv, http.MethodGet, "/runtime/tasks?"+q, "")
		assert.EqualValues(t, 0, decode(t, raw)["total"], "a held task is offered to nobody: %s", q)
	}
}

// TestOlderDatabase: a sandbox file made before variables had types and
// tasks had revisions gets the columns, and its rows still read.
func TestOlderDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := sandboxdb.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		`CREATE TABLE wf_variables (instance_id INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (instance_id, name))`,
		`CREATE TABLE wf_tasks (id INTEGER PRIMARY KEY, instance_id INTEGER NOT NULL, execution_id INTEGER NOT NULL,
			definition_id TEXT NOT NULL, task_key TEXT NOT NULL, name TEXT NOT NULL, description TEXT, owner TEXT, assignee TEXT,
			priority INTEGER NOT NULL, create_time INTEGER NOT NULL, claim_time INTEGER, end_time INTEGER)`,
		`INSERT INTO wf_tasks VALUES (9, 7, 8, 'loanProcess:1:4', 'UnassignedLoan', 'Unassigned Loan', NULL, NULL, NULL, 50, 0, NULL, NULL)`,
		`INSERT INTO wf_variables VALUES (7, 'amount', '1.10')`,
	} {
		_, err := db.Exec(stmt)
		require.NoError(t, err)
	}
	h, err := workflow.New(db)
	require.NoError(t, err)
	srv := serve(t, h)
	status, raw := send(t, srv, http.MethodGet, "/runtime/tasks?includeProcessVariables=true", "")
	require.Equal(t, http.StatusOK, status, string(raw))
	assert.Contains(t, string(raw), `{"name":"amount","type":"double","value":1.1,"scope":"global"}`)
	status, _ = send(t, srv, http.MethodPost, "/runtime/tasks/9", `{"action":"claim","assignee":"kermit"}`)
	assert.Equal(t, http.StatusOK, status)
	var rev int
	require.NoError(t, db.QueryRow(`SELECT rev FROM wf_tasks WHERE id = 9`).Scan(&rev))
	assert.Equal(t, 2, rev)
}
