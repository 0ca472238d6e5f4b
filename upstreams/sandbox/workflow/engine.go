// Package workflow is the sandbox's workflow engine (UPSTREAMS.md B2): the
// part of the Flowable REST API the gateway calls, over the wf_ tables of
// the sandbox database, with the loan process deployed.
package workflow

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// New returns the reference workflow engine (UPSTREAMS.md B2): the
// subset of the Flowable REST API the gateway uses, served from the root
// (/management/engine, /identity/users/{id}, /repository/process-definitions,
// /runtime/process-instances, /runtime/tasks[/{id}],
// /history/historic-task-instances), in the engine's shapes, list envelope
// and error bodies. It creates its wf_ tables on db when they are missing
// and seeds the loan process (two versions), its users, their groups and
// the tasks' candidates. Every change runs in one transaction; a claim, as
// on the engine, reads the task and then writes it only if nothing changed
// it meanwhile, so of concurrent claims one wins and the others fail with
// the engine's 500 or, once the winner is written, its 409.
//
// Like the real engine it reads but does not check HTTP Basic credentials:
// the caller's user name becomes an instance's startUserId.
func New(db *sql.DB) (http.Handler, error) {
	return NewWithOptions(db, Options{})
}

// Options tune the reference engine for tests; the zero value is the
// engine as the sandbox serves it.
type Options struct {
	// AfterClaimRead, when not nil, is called with the task id between a
	// claim's read of the task and its write, the window in which a
	// concurrent claim makes it fail on the engine's optimistic lock (500).
	// A test holds claims there to make them race as they do on a busy
	// engine; it must return for the claim to go on.
	AfterClaimRead func(taskID string)
	// Version makes the engine one of that version (restvar.ParseVersion):
	// GET /management/engine answers it, and the variable types and date
	// syntax are that version's. Default restvar.CurrentRelease.
	Version string
}

// NewWithOptions is New with opts.
func NewWithOptions(db *sql.DB, opts Options) (http.Handler, error) {
	version, err := restvar.ParseVersion(cmp.Or(opts.Version, restvar.CurrentRelease))
	if err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	if err := ensureSchema(context.Background(), db); err != nil {
		return nil, err
	}
	e := &engine{db: db, now: time.Now, opts: opts, conv: restvar.For(version)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /management/engine", e.getEngine)
	mux.HandleFunc("GET /identity/users/{id}", e.getUser)
	mux.HandleFunc("GET /repository/process-definitions", e.listDefinitions)
	mux.HandleFunc("POST /runtime/process-instances", e.startInstance)
	mux.HandleFunc("GET /runtime/tasks", e.listTasks)
	mux.HandleFunc("GET /runtime/tasks/{id}", e.getTask)
	mux.HandleFunc("PUT /runtime/tasks/{id}", e.updateTask)
	mux.HandleFunc("POST /runtime/tasks/{id}", e.taskAction)
	mux.HandleFunc("GET /history/historic-task-instances", e.listHistoricTasks)
	return mux, nil
}

// engine serves the engine's resources from the wf_ tables.
type engine struct {
	db   *sql.DB
	now  func() time.Time
	opts Options
	// conv are the variable types and date syntax of the engine's version.
	conv restvar.Converters
}

// getEngine answers GET /management/engine as ProcessEngineResource does
// in a Spring Boot REST app, where ProcessEngines holds no EngineInfo: the
// engine's name, and resourceUrl and exception null.
func (e *engine) getEngine(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"name": "default", "resourceUrl": nil, "exception": nil,
		"version": e.conv.Version().String()})
}

// maxBody bounds a request body: a start or a completion with its
// variables is far below it.
const maxBody = 1 << 20

// decodeBody decodes the JSON request body into v, reading at most
// maxBody bytes.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	return json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(v)
}

// engineTimeLayout is how the engine writes dates: 2013-04-17T10:17:43.902+0000.
const engineTimeLayout = "2006-01-02T15:04:05.000-0700"

func formatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(engineTimeLayout)
}

func formatNullMillis(ms sql.NullInt64) *string {
	if !ms.Valid {
		return nil
	}
	s := formatMillis(ms.Int64)
	return &s
}

func nullString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// pathID reads a numeric engine id from the path; anything else cannot
// name a record, so it is the same 404 as an unknown id.
func pathID(r *http.Request, notFoundFormat string) (int64, error) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, notFound(notFoundFormat, raw)
	}
	return id, nil
}

// inTx runs fn in one transaction, committed when fn returns nil.
func (e *engine) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("workflow: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("workflow: commit: %w", err)
	}
	return nil
}

// nextID allocates an id from the one sequence every record shares, as
// the engine's id generator does.
func nextID(tx *sql.Tx) (int64, error) {
	var id int64
	err := tx.QueryRow(`UPDATE wf_seq SET next = next + 1 WHERE name = 'id' RETURNING next - 1`).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("workflow: allocating id: %w", err)
	}
	return id, nil
}
