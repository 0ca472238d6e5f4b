package workflow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/workflow"
	"github.com/restgate/gateway/upstreams/workflow/restvar"
	"github.com/restgate/gateway/upstreams/workflow/workflowtest"
)

// start starts the loan process with vars.
func start(c *workflow.Client, vars ...workflow.Variable) error {
	_, err := c.StartProcess(context.Background(), workflow.StartRequest{ProcessDefinitionKey: "loanProcess", Variables: vars})
	return err
}

func v(name, typ, value string) workflow.Variable {
	return workflow.Variable{Name: name, Type: typ, Value: json.RawMessage(value)}
}

// TestVariablesForEachGeneration starts a process with the same variables
// against engines of three releases: what each receives is what its
// converters take, and the types it lacks are refused before anything is
// sent, naming its version.
func TestVariablesForEachGeneration(t *testing.T) {
	t.Parallel()
	untyped := []workflow.Variable{v("amount", "", `1.10`), v("big", "", `12345678901234567890`), v("count", "", `3`),
		v("due", "", `"2013-04-17T10:17:43Z"`), v("ref", "", `"123e4567-e89b-12d3-a456-426614174000"`),
		v("profile", "", `{"income": [1200.50]}`)}
	tests := []struct {
		gen  workflowtest.Generation
		vars []workflow.Variable
		sent string // the variables the engine receives; "" when refused
		err  string // the refusal's reason
	}{
		{gen: workflowtest.Flowable630(), vars: untyped,
			sent: `[{"name":"amount","type":"double","value":1.10},{"name":"big","type":"double","value":12345678901234567890},` +
				`{"name":"count","type":"integer","value":3},{"name":"due","type":"string","value":"2013-04-17T10:17:43Z"},` +
				`{"name":"ref","type":"string","value":"123e4567-e89b-12d3-a456-426614174000"},` +
				`{"name":"profile","type":"string","value":"{\"income\":[1200.50]}"}]`},
		{gen: workflowtest.Flowable642(), vars: untyped,
			sent: `[{"name":"amount","type":"double","value":1.10},{"name":"big","type":"double","value":12345678901234567890},` +
				`{"name":"count","type":"integer","value":3},{"name":"due","type":"string","value":"2013-04-17T10:17:43Z"},` +
				`{"name":"ref","type":"string","value":"123e4567-e89b-12d3-a456-426614174000"},` +
				`{"name":"profile","type":"json","value":{"income":[1200.50]}}]`},
		{gen: workflowtest.Flowable800(), vars: untyped,
			sent: `[{"name":"amount","type":"bigDecimal","value":"1.10"},{"name":"big","type":"bigInteger","value":"12345678901234567890"},` +
				`{"name":"count","type":"integer","value":3},{"name":"due","type":"string","value":"2013-04-17T10:17:43Z"},` +
				`{"name":"ref","type":"string","value":"123e4567-e89b-12d3-a456-426614174000"},` +
				`{"name":"profile","type":"json","value":{"income":[1200.50]}}]`},
		{gen: workflowtest.Flowable642(), vars: []workflow.Variable{v("rate", "bigDecimal", `"1.10"`)},
			err: `the workflow engine (version 6.5.0.1) has no type bigDecimal, which Flowable added in 7.2.0`},
		{gen: workflowtest.Flowable642(), vars: []workflow.Variable{v("at", "instant", `"2013-04-17T10:17:43Z"`)},
			err: `has no type instant, which Flowable added in 6.5.0`},
		{gen: workflowtest.Flowable642(), vars: []workflow.Variable{v("ref", "uuid", `"123e4567-e89b-12d3-a456-426614174000"`)},
			err: `has no type uuid, which Flowable added in 7.1.0`},
		{gen: workflowtest.Flowable630(), vars: []workflow.Variable{v("profile", "json", `{}`)},
			err: `(version 6.3.0.1) has no type json, which Flowable added in 6.4.0`},
		{gen: workflowtest.Flowable630(), vars: []workflow.Variable{v("huge", "", `1e400`)},
			err: `beyond what a double holds`},
		{gen: workflowtest.Flowable642(), vars: []workflow.Variable{v("due", "date", `"2013-04-17T10:17"`)},
			err: `reads dates as Flowable did before 8.0.0`},
		{gen: workflowtest.Flowable642(), vars: []workflow.Variable{v("due", "date", `"2013-04-17T10:17+0200"`), v("n", "double", `1.10`)},
			sent: `[{"name":"due","type":"date","value":"2013-04-17T10:17+0200"},{"name":"n","type":"double","value":1.10}]`},
		{gen: workflowtest.Flowable800(), vars: []workflow.Variable{v("at", "instant", `"2013-04-17T10:17:43Z"`), v("day", "localDate", `"2013-04-17"`),
			v("ref", "uuid", `"123e4567-e89b-12d3-a456-426614174000"`), v("due", "date", `"2013-04-17T10:17"`)},
			sent: `[{"name":"at","type":"instant","value":"2013-04-17T10:17:43Z"},{"name":"day","type":"localDate","value":"2013-04-17"},` +
				`{"name":"ref","type":"uuid","value":"123e4567-e89b-12d3-a456-426614174000"},{"name":"due","type":"date","value":"2013-04-17T10:17"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.gen.Release+" "+tt.vars[0].Name+" "+tt.vars[0].Type, func(t *testing.T) {
			t.Parallel()
			engine := workflowtest.NewEngine(t, tt.gen)
			c := workflow.New(engine.URL(), newDoer(), workflow.Options{})
			err := start(c, tt.vars...)
			assert.Equal(t, 1, engine.Reads(), "the version is read once")
			assert.Empty(t, engine.Refused(), "the engine refuses nothing")
			if tt.err != "" {
				var pe *workflow.ParamError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, `variable "`+tt.vars[0].Name+`"`, pe.Param)
				assert.Contains(t, pe.Reason, tt.err)
				assert.Empty(t, engine.Accepted(), "nothing is started")
				return
			}
			require.NoError(t, err)
			require.Len(t, engine.Accepted(), 1)
			assert.JSONEq(t, tt.sent, string(engine.Accepted()[0]))
			assert.Equal(t, tt.sent, compact(t, engine.Accepted()[0]), "the numbers keep their text")
		})
	}
}

func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, raw))
	return b.String()
}

// Without the adapter's typing, the old engine refuses the process: the
// types the current engine has are what it answers 400 for, with the
// message its source has.
func TestOldEngineRefusesNewTypes(t *testing.T) {
	t.Parallel()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable642())
	c := workflow.New(engine.URL(), newDoer(), current()) // pinned wrongly: the engine is 6.4.2
	err := start(c, v("amount", "", `1.10`))
	ue := upstreams.AsError(err)
	require.NotNil(t, ue, "%v", err)
	assert.Equal(t, upstreams.KindRejected, ue.Kind)
	assert.Equal(t, http.StatusBadRequest, ue.Status)
	assert.Equal(t, "Bad request: Variable 'amount' has unsupported type: 'bigDecimal'.", ue.Message)
	assert.Zero(t, engine.Reads(), "a pinned version is never read")
	assert.Empty(t, engine.Accepted())
}

func TestPinnedVersion(t *testing.T) {
	t.Parallel()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable642())
	engine.Hide(http.StatusNotFound)
	pinned, err := workflow.ParseOptions(map[string]string{"engineVersion": "6.4.2"})
	require.Empty(t, err)
	c := workflow.New(engine.URL(), newDoer(), pinned)
	require.NoError(t, start(c, v("amount", "", `1.10`), v("profile", "", `{"a":1}`)))
	require.NoError(t, c.Complete(context.Background(), "8", "complete", []workflow.Variable{v("rate", "", `0.25`)}))
	assert.Zero(t, engine.Reads())
	assert.Equal(t, []string{
		`[{"name":"amount","type":"double","value":1.10},{"name":"profile","type":"json","value":{"a":1}}]`,
		`[{"name":"disposition","type":"string","value":"complete"},{"name":"rate","type":"double","value":0.25}]`,
	}, texts(t, engine.Accepted()))
}

func texts(t *testing.T, raws []json.RawMessage) []string {
	out := make([]string, len(raws))
	for i, r := range raws {
		out[i] = compact(t, r)
	}
	return out
}

func TestParseOptions(t *testing.T) {
	t.Parallel()
	o, errs := workflow.ParseOptions(map[string]string{"engineVersion": " 6.5.0.6 "})
	require.Empty(t, errs)
	assert.Equal(t, "6.5.0.6", o.EngineVersion.String())
	o, errs = workflow.ParseOptions(map[string]string{"engineVersion": ""})
	require.Empty(t, errs)
	assert.True(t, o.EngineVersion.IsZero(), "empty reads it from the engine")
	_, errs = workflow.ParseOptions(map[string]string{"engineVersion": "six", "apiVersion": "v1"})
	require.Len(t, errs, 2)
	assert.Equal(t, "apiVersion", errs[0].Path)
	assert.Equal(t, "unknown option of a workflow upstream; known: engineVersion", errs[0].Problem)
	assert.Equal(t, "engineVersion", errs[1].Path)
	assert.Contains(t, errs[1].Problem, `not a Flowable engine version: "six"`)
}

// logBuffer is a logger's output, safe to read while it writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// An engine that hides its version gets what every engine converts, and
// the operator is told once.
func TestHiddenVersion(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			engine := workflowtest.NewEngine(t, workflowtest.Flowable800())
			engine.Hide(status)
			var log logBuffer
			c := workflow.New(engine.URL(), newDoer(), workflow.Options{Name: "flow", Logger: log.logger()})
			for range 3 {
				require.NoError(t, start(c, v("amount", "", `1.10`), v("profile", "", `{"a":1}`)))
			}
			assert.Equal(t, 1, engine.Reads(), "what a hidden engine said is kept too")
			assert.Equal(t, `[{"name":"amount","type":"double","value":1.10},{"name":"profile","type":"string","value":"{\"a\":1}"}]`,
				compact(t, engine.Accepted()[2]))
			assert.Equal(t, 1, strings.Count(log.String(), "level=WARN"), log.String())
			assert.Contains(t, log.String(), "pin it with upstreams.flow.options.engineVersion")
			assert.Contains(t, log.String(), "GET /management/engine answered "+strconv.Itoa(status))
		})
	}
}

// A version-dependent variable is what makes the adapter ask; a call
// whose variables every engine types alike sends nothing more.
func TestPortableVariablesNeedNoVersion(t *testing.T) {
	t.Parallel()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable630())
	c := workflow.New(engine.URL(), newDoer(), workflow.Options{})
	require.NoError(t, start(c, v("name", "", `"Fozzie"`), v("count", "", `3`), v("ok", "", `true`), v("n", "double", `1.5`)))
	require.NoError(t, c.Complete(context.Background(), "8", "complete", nil))
	assert.Zero(t, engine.Reads())
	assert.Len(t, engine.Accepted(), 2)
}

// clock is a settable time for the version's age.
type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }
func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) options() workflow.Options { return workflow.Options{Now: c.now} }

// The version is read again after the engine was lost: a call that got no
// answer means the next one may meet another engine.
func TestReadAgainAfterTheEngineWasLost(t *testing.T) {
	t.Parallel()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable800())
	c := workflow.New(engine.URL(), newDoer(), workflow.Options{})
	require.NoError(t, start(c, v("amount", "", `1.10`)))
	engine.Down(true)
	err := start(c, v("amount", "", `1.10`))
	ue := upstreams.AsError(err)
	require.NotNil(t, ue, "%v", err)
	assert.Equal(t, upstreams.KindFailed, ue.Kind)
	engine.Become(workflowtest.Flowable642()) // rolled back while it was down
	engine.Down(false)
	require.NoError(t, start(c, v("amount", "", `1.10`)))
	assert.Equal(t, 2, engine.Reads())
	assert.Equal(t, []string{`[{"name":"amount","type":"bigDecimal","value":"1.10"}]`, `[{"name":"amount","type":"double","value":1.10}]`},
		texts(t, engine.Accepted()))
	assert.Empty(t, engine.Refused())
}

// An engine that cannot be reached is the call's error, and nothing is
// kept: the next call reads the version.
func TestUnreachableEngine(t *testing.T) {
	t.Parallel()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable642())
	engine.Down(true)
	c := workflow.New(engine.URL(), newDoer(), workflow.Options{})
	err := start(c, v("amount", "", `1.10`))
	require.NotNil(t, upstreams.AsError(err), "%v", err)
	assert.Equal(t, upstreams.KindFailed, upstreams.AsError(err).Kind)
	engine.Down(false)
	require.NoError(t, start(c, v("amount", "", `1.10`)))
	assert.Equal(t, 1, engine.Reads())
	assert.Equal(t, []string{`[{"name":"amount","type":"double","value":1.10}]`}, texts(t, engine.Accepted()))
}

// An engine replaced by an older one without a failed call refuses a type
// once; the adapter reads the version again and sends the variables as
// the version read types them. Within seconds of a read it does not read
// again: the engine contradicts itself, and its refusal stands.
func TestReadAgainWhenTheEngineRefusesAType(t *testing.T) {
	t.Parallel()
	clk := newClock()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable800())
	var log logBuffer
	opts := clk.options()
	opts.Logger = log.logger()
	c := workflow.New(engine.URL(), newDoer(), opts)
	require.NoError(t, start(c, v("amount", "", `1.10`)))

	engine.Become(workflowtest.Flowable642())
	err := start(c, v("amount", "", `1.10`))
	require.Error(t, err, "a refusal right after the read stands")
	assert.Equal(t, "Bad request: Variable 'amount' has unsupported type: 'bigDecimal'.", upstreams.AsError(err).Message)
	assert.Equal(t, 1, engine.Reads())
	assert.Contains(t, log.String(), "refused a variable type its version converts")

	clk.advance(time.Minute)
	require.NoError(t, start(c, v("amount", "", `1.10`)))
	assert.Equal(t, 2, engine.Reads())
	assert.Equal(t, []string{`[{"name":"amount","type":"bigDecimal","value":"1.10"}]`, `[{"name":"amount","type":"double","value":1.10}]`},
		texts(t, engine.Accepted()))
	assert.Len(t, engine.Refused(), 2)
	assert.Contains(t, log.String(), "version=6.5.0.1")
}

// A version read ten minutes ago is read again: an engine upgraded without
// a failed call is seen.
func TestReadAgainAfterTenMinutes(t *testing.T) {
	t.Parallel()
	clk := newClock()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable642())
	c := workflow.New(engine.URL(), newDoer(), clk.options())
	require.NoError(t, start(c, v("amount", "", `1.10`)))
	engine.Become(workflowtest.Flowable800())
	clk.advance(9 * time.Minute)
	require.NoError(t, start(c, v("amount", "", `1.10`)))
	clk.advance(time.Minute)
	require.NoError(t, start(c, v("amount", "", `1.10`)))
	assert.Equal(t, 2, engine.Reads())
	assert.Equal(t, []string{`[{"name":"amount","type":"double","value":1.10}]`, `[{"name":"amount","type":"double","value":1.10}]`,
		`[{"name":"amount","type":"bigDecimal","value":"1.10"}]`}, texts(t, engine.Accepted()))
}

// Concurrent calls that need the version share one read.
func TestConcurrentCallsShareOneRead(t *testing.T) {
	t.Parallel()
	engine := workflowtest.NewEngine(t, workflowtest.Flowable800())
	c := workflow.New(engine.URL(), newDoer(), workflow.Options{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { assert.NoError(t, start(c, v("amount", "", `1.10`))) })
	}
	wg.Wait()
	assert.Equal(t, 1, engine.Reads())
	assert.Len(t, engine.Accepted(), 16)
}

// A caller stops waiting for a slow read when its own context ends; the
// read goes on for the others.
func TestWaitForTheVersionEndsWithTheCall(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var reads atomic.Int32
	srv := newVersionServer(t, func() string { reads.Add(1); <-release; return "6.4.2" })
	c := workflow.New(srv, newDoer(), workflow.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Converters(ctx)
	require.Error(t, err)
	assert.Equal(t, upstreams.KindCanceled, upstreams.AsError(err).Kind)
	close(release)
	conv, err := c.Converters(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "6.4.2", conv.String())
	assert.Equal(t, []string{restvar.String, restvar.Integer, restvar.Long, restvar.Short, restvar.Double, restvar.Boolean,
		restvar.Date, restvar.JSON}, conv.Types())
	assert.EqualValues(t, 1, reads.Load())
}

// newVersionServer answers GET /management/engine with the version version
// returns, when it returns.
func newVersionServer(t *testing.T, version func() string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "/management/engine", r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"name": "default", "version": version()})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// An engine that refuses a type its version converts, even when asked
// again, keeps its refusal: the call is sent once more only when the
// version read again types it differently.
func TestEngineThatContradictsItsVersion(t *testing.T) {
	t.Parallel()
	clk := newClock()
	odd := workflowtest.Flowable642()
	odd.Reports = "8.0.0"
	engine := workflowtest.NewEngine(t, odd)
	var log logBuffer
	opts := clk.options()
	opts.Logger = log.logger()
	c := workflow.New(engine.URL(), newDoer(), opts)
	require.NoError(t, start(c, v("profile", "", `{}`))) // reads the version: json, which the engine has
	clk.advance(time.Minute)
	err := start(c, v("amount", "", `1.10`))
	assert.Equal(t, "Bad request: Variable 'amount' has unsupported type: 'bigDecimal'.", upstreams.AsError(err).Message)
	assert.Equal(t, 2, engine.Reads(), "read, refused, read again")
	assert.Len(t, engine.Refused(), 1, "not sent again with the same types")
	assert.Contains(t, log.String(), "refused a variable type its version converts")
}
