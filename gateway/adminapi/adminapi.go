// Package adminapi is the operator's JSON API on the admin listener,
// under /admin/api/v1/: the gateway's state (build, configuration and
// reloads, listeners, cluster store, call-log shipping), the route table
// with each route's recent figures, the upstreams (breaker, concurrency
// limit, OAuth token state, cache and allowance figures where those
// metrics exist), and the recent slow calls, duplicate users and errors
// by response code. The console is a client of it; scripts and curl get
// the same answers. Its own OpenAPI 3.1 document is served at
// /admin/api/v1/openapi.json (openapi.json here).
//
// Every operation is a GET that changes nothing. Nothing it answers holds
// a credential: upstream URLs lose their user info and their query values,
// tokens are described, never shown, and bodies and system messages are
// masked as the call log masks them. Who may call it is decided in front
// of it (gateway/adminguard).
package adminapi

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/app"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/reload"
)

// Prefix is where the API is served.
const Prefix = "/admin/api/v1/"

//go:embed openapi.json
var document []byte

// Document is the API's OpenAPI 3.1 document.
func Document() []byte { return document }

// Build identifies the running binary.
type Build struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	GoVersion string `json:"goVersion"`
}

// Listeners are the bound addresses, as URLs.
type Listeners struct {
	API   string `json:"api"`
	Admin string `json:"admin"`
	TLS   bool   `json:"tls"`
}

// Access says who may use the console and this API.
type Access struct {
	// Loopback: the admin listener binds only loopback.
	Loopback bool `json:"loopback"`
	// Token: a bearer token (console.token) opens it.
	Token bool `json:"token"`
	// Role is the role a caller authenticated by auth.mode must hold;
	// "" when auth.mode identifies nobody who could hold one (none).
	Role string `json:"role"`
	// Locked: off loopback with no credential configured, nobody may.
	Locked bool `json:"locked"`
}

// Sources are what the API reads. Every field is required except
// Activity (nil: recording off) and Now.
type Sources struct {
	Build     Build
	Started   time.Time
	Listeners Listeners
	// Access says who may use the API now (a reload may change auth.mode).
	Access func() Access
	// Serving is the gateway serving now (reload.Reloader.Serving).
	Serving func() *app.Gateway
	// Reloads is the configuration's revision and its last reloads
	// (reload.Reloader.Status).
	Reloads func() reload.Status
	// Upstreams are the live upstream clients.
	Upstreams *app.UpstreamSet
	// Metrics is the registry the gateway's metrics are on; the cache and
	// allowance figures are read from it by name when present.
	Metrics  prometheus.Gatherer
	Activity *activity.Recorder
	Now      func() time.Time
}

// Handler serves the API under Prefix. Every answer is JSON, not stored
// by caches (Cache-Control: no-store); an unknown path is 404
// URL_INVALID, another method than GET or HEAD 405, a bad query 400
// PARAMETER_INVALID, each as {"error": {...}}.
func Handler(src Sources) http.Handler {
	if src.Now == nil {
		src.Now = time.Now
	}
	a := &api{src: src}
	mux := http.NewServeMux()
	get := func(path string, h func(*http.Request) (any, error)) {
		mux.HandleFunc("GET "+Prefix+path, func(w http.ResponseWriter, r *http.Request) {
			v, err := h(r)
			if err != nil {
				writeError(w, err)
				return
			}
			writeJSON(w, http.StatusOK, v)
		})
		mux.HandleFunc(Prefix+path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, &apiError{envelope.URLInvalid, http.StatusMethodNotAllowed, "only GET and HEAD are served here: the API changes nothing"})
		})
	}
	get("openapi.json", func(r *http.Request) (any, error) {
		if err := noQuery(r); err != nil {
			return nil, err
		}
		return json.RawMessage(document), nil
	})
	get("overview", a.overview)
	get("routes", a.routes)
	get("upstreams", a.upstreams)
	get("slow-calls", a.slowCalls)
	get("duplicates", a.duplicates)
	get("errors", a.errors)
	get("reloads", a.reloads)
	mux.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{envelope.URLInvalid, http.StatusNotFound, "no such operation: the document at " + Prefix + "openapi.json lists them"})
	})
	return mux
}

type api struct{ src Sources }

// apiError is an answer other than 200: a response-code id of the
// gateway's catalogue, the status and what is wrong.
type apiError struct {
	id      string
	status  int
	message string
}

func (e *apiError) Error() string { return e.message }

func writeError(w http.ResponseWriter, err error) {
	e, ok := err.(*apiError)
	if !ok {
		e = &apiError{envelope.RestDispatcherFailed, http.StatusInternalServerError, err.Error()}
	}
	code := 0
	if rc, ok := envelope.Catalogue()[e.id]; ok {
		code = rc.Code
	}
	writeJSON(w, e.status, map[string]any{"error": map[string]any{"id": e.id, "code": code, "status": e.status, "message": e.message}})
}

// WriteError answers err's status with the API's error object: the guard
// in front of the API refuses callers in the same shape.
func WriteError(w http.ResponseWriter, id string, status int, message string) {
	writeError(w, &apiError{id, status, message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"id":"SERIALIZATION_FAILED","code":998,"status":500,"message":"the answer could not be serialised"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
