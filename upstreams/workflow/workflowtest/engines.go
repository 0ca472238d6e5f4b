package workflowtest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Generation is one Flowable release as the gateway meets it: what its GET
// /management/engine answers and the variable converters of its
// RestResponseFactory. Each is written from that release's source
// (modules/flowable-rest/.../RestResponseFactory.java,
// initializeVariableConverters; ProcessEngineResource; FlowableVersions),
// not from the gateway's own table, so that the table is tested against
// them.
type Generation struct {
	// Release is the release's name ("6.4.2").
	Release string
	// Reports is the version GET /management/engine answers: before 6.6.0
	// ProcessEngine.VERSION, the database schema version; from 6.6.0 the
	// jar's Implementation-Version, the release.
	Reports string
	// Types are the converters' type names, in registration order.
	Types []string
}

// Flowable630 is Flowable 6.3.0 (tag flowable-6.3.0): seven converters,
// and the schema version 6.3.0.1 for a version.
func Flowable630() Generation {
	return Generation{Release: "6.3.0", Reports: "6.3.0.1",
		Types: []string{"string", "integer", "long", "short", "double", "boolean", "date"}}
}

// Flowable642 is Flowable 6.4.2 (tag flowable-6.4.2): 6.3's converters and
// json (JsonObjectRestVariableConverter); it reports the schema version
// 6.5.0.1, a number above its release.
func Flowable642() Generation {
	return Generation{Release: "6.4.2", Reports: "6.5.0.1",
		Types: []string{"string", "integer", "long", "short", "double", "boolean", "date", "json"}}
}

// Flowable800 is Flowable 8.0.0 (tag flowable-8.0.0), the current
// release: fourteen converters, bigDecimal and bigInteger (7.2.0), uuid
// (7.1.0) and the java.time ones (6.5.0) among them.
func Flowable800() Generation {
	return Generation{Release: "8.0.0", Reports: "8.0.0",
		Types: []string{"string", "integer", "long", "short", "double", "bigDecimal", "bigInteger", "boolean",
			"date", "instant", "localDate", "localDateTime", "json", "uuid"}}
}

// Engine is a fake Flowable REST service of one Generation under
// /flowable-rest/service: GET /management/engine, POST
// /runtime/process-instances and the task action complete (POST
// /runtime/tasks/{id}). Each variable is converted as
// RestResponseFactory.getVariableValue does before anything is started or
// completed: a type without a converter is the 400 {"message": "Bad
// request", "exception": "Variable 'x' has unsupported type: 'y'."}, a
// value the converter's instanceof check refuses its 400, a big number
// that is not one the unmapped NumberFormatException's 500. Date syntax is
// not checked. It is safe for concurrent use.
type Engine struct {
	srv *httptest.Server

	mu       sync.Mutex
	gen      Generation
	hidden   int // the status GET /management/engine answers; 0 answers the info
	down     bool
	reads    int
	accepted []json.RawMessage
	refused  []string
}

// NewEngine serves a fake engine of gen until the test ends.
func NewEngine(tb testing.TB, gen Generation) *Engine {
	tb.Helper()
	e := &Engine{gen: gen}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /flowable-rest/service/management/engine", e.info)
	mux.HandleFunc("POST /flowable-rest/service/runtime/process-instances", e.start)
	mux.HandleFunc("POST /flowable-rest/service/runtime/tasks/{id}", e.complete)
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		down := e.down
		e.mu.Unlock()
		if down {
			// The engine is gone: the connection closes without an answer.
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		mux.ServeHTTP(w, r)
	}))
	tb.Cleanup(e.srv.Close)
	return e
}

// URL is the engine's REST service base.
func (e *Engine) URL() string { return e.srv.URL + "/flowable-rest/service" }

// Hide makes GET /management/engine answer status (401, 403, 404 ...) with
// Spring's error body, as an engine behind a proxy or without the
// management privilege does; 0 answers it again.
func (e *Engine) Hide(status int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hidden = status
}

// Down closes every connection without an answer while down is true: the
// engine stopped, or restarts.
func (e *Engine) Down(down bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.down = down
}

// Become replaces the engine by one of gen, as an upgrade or a rollback
// does.
func (e *Engine) Become(gen Generation) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gen = gen
}

// Reads is how many times GET /management/engine was asked.
func (e *Engine) Reads() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.reads
}

// Accepted are the variables of every start and completion the engine
// took, each as the JSON array it received.
func (e *Engine) Accepted() []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.accepted)
}

// Refused are the exceptions of every start and completion the engine
// refused.
func (e *Engine) Refused() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.refused)
}

func (e *Engine) info(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	e.reads++
	gen, hidden := e.gen, e.hidden
	e.mu.Unlock()
	if hidden != 0 {
		// Spring Boot's error body; what a proxy answers varies.
		answer(w, hidden, map[string]any{"timestamp": "2026-01-01T00:00:00.000+00:00", "status": hidden,
			"error": http.StatusText(hidden), "path": "/flowable-rest/service/management/engine"})
		return
	}
	// EngineInfoResponse, nulls included (the REST app's ObjectMapper).
	answer(w, http.StatusOK, map[string]any{"name": "default", "resourceUrl": nil, "exception": nil, "version": gen.Reports})
}

// variable is a RestVariable as Jackson reads it into Object fields.
type variable struct {
	Name  *string `json:"name"`
	Type  *string `json:"type"`
	Value any     `json:"value"`
}

func (e *Engine) start(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ProcessDefinitionID  *string         `json:"processDefinitionId"`
		ProcessDefinitionKey *string         `json:"processDefinitionKey"`
		BusinessKey          *string         `json:"businessKey"`
		Variables            json.RawMessage `json:"variables"`
	}
	if !e.convert(w, r, &req, func() json.RawMessage { return req.Variables }) {
		return
	}
	answer(w, http.StatusCreated, map[string]any{"id": "5", "url": e.URL() + "/runtime/process-instances/5",
		"businessKey": req.BusinessKey, "suspended": false, "ended": false, "processDefinitionId": "loanProcess:1:4",
		"activityId": "UnassignedLoan", "variables": []any{}, "completed": false})
}

func (e *Engine) complete(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Action    string          `json:"action"`
		Variables json.RawMessage `json:"variables"`
	}
	if !e.convert(w, r, &req, func() json.RawMessage { return req.Variables }) {
		return
	}
	if req.Action != "complete" {
		e.refuse(w, http.StatusBadRequest, "Invalid action: '"+req.Action+"'.")
		return
	}
	w.WriteHeader(http.StatusOK)
}

// convert reads the body into req and converts the variables vars returns
// from it; false when it answered a refusal.
func (e *Engine) convert(w http.ResponseWriter, r *http.Request, req any, vars func() json.RawMessage) bool {
	if err := json.NewDecoder(r.Body).Decode(req); err != nil {
		e.refuse(w, http.StatusBadRequest, "Could not read JSON: "+err.Error())
		return false
	}
	raw := vars()
	var list []variable
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if len(raw) > 0 && dec.Decode(&list) != nil {
		e.refuse(w, http.StatusBadRequest, "variables is not a list")
		return false
	}
	e.mu.Lock()
	types := e.gen.Types
	e.mu.Unlock()
	for _, v := range list {
		if status, exception := getVariableValue(types, v); status != 0 {
			e.refuse(w, status, exception)
			return false
		}
	}
	e.mu.Lock()
	e.accepted = append(e.accepted, slices.Clone(raw))
	e.mu.Unlock()
	return true
}

// getVariableValue is RestResponseFactory.getVariableValue and the
// converters' checks: the status and exception of a refusal, or 0.
func getVariableValue(types []string, v variable) (int, string) {
	if v.Name == nil {
		return http.StatusBadRequest, "Variable name is required."
	}
	if v.Type == nil {
		return 0, ""
	}
	typ := *v.Type
	if !slices.Contains(types, typ) {
		return http.StatusBadRequest, fmt.Sprintf("Variable '%s' has unsupported type: '%s'.", *v.Name, typ)
	}
	if v.Value == nil {
		return 0, ""
	}
	_, isNumber := v.Value.(json.Number)
	_, isString := v.Value.(string)
	_, isBool := v.Value.(bool)
	switch typ {
	case "string":
		if !isString {
			return http.StatusBadRequest, "Converter can only convert strings"
		}
	case "integer", "long", "short", "double":
		if !isNumber {
			return http.StatusBadRequest, "Converter can only convert " + typ + "s"
		}
	case "boolean":
		if !isBool {
			return http.StatusBadRequest, "Converter can only convert booleans"
		}
	case "date", "instant", "localDate", "localDateTime":
		if !isString {
			return http.StatusBadRequest, "Converter can only convert string to " + typ
		}
	case "uuid":
		if !isString {
			return http.StatusBadRequest, "Converter can only convert Strings"
		}
	case "bigDecimal", "bigInteger":
		// new BigDecimal(value.toString()): anything else is a
		// NumberFormatException the REST layer does not map.
		text := fmt.Sprint(v.Value)
		ok := false
		if typ == "bigInteger" {
			_, ok = new(big.Int).SetString(text, 10)
		} else {
			_, ok = new(big.Float).SetString(text)
		}
		if !ok {
			return http.StatusInternalServerError, ""
		}
	}
	return 0, ""
}

func (e *Engine) refuse(w http.ResponseWriter, status int, exception string) {
	e.mu.Lock()
	e.refused = append(e.refused, exception)
	e.mu.Unlock()
	body := map[string]any{"message": map[int]string{400: "Bad request", 500: "Internal server error"}[status]}
	if exception != "" {
		body["exception"] = exception
	}
	answer(w, status, body)
}

func answer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
