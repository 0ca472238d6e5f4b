package sandbox

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// NewWorkflow returns the reference workflow engine (UPSTREAMS.md B2): the
// subset of the Flowable REST API the gateway uses, served from the root
// (/identity/users/{id}, /repository/process-definitions,
// /runtime/process-instances, /runtime/tasks[/{id}],
// /history/historic-task-instances), in the engine's shapes, list envelope
// and error bodies. It creates its wf_ tables on db when they are missing
// and seeds the loan process, its users and candidates. Every change runs
// in one transaction, so concurrent claims of one task cannot both win.
//
// Like the real engine it reads but does not check HTTP Basic credentials:
// the caller's user name becomes an instance's startUserId.
func NewWorkflow(db *sql.DB) (http.Handler, error) {
	if err := ensureWorkflowSchema(context.Background(), db); err != nil {
		return nil, err
	}
	e := &workflowEngine{db: db, now: time.Now}
	mux := http.NewServeMux()
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

// workflowEngine serves the engine's resources from the wf_ tables.
type workflowEngine struct {
	db  *sql.DB
	now func() time.Time
}

// wfMaxBody bounds a request body: a start or a completion with its
// variables is far below it.
const wfMaxBody = 1 << 20

// wfDecodeBody decodes the JSON request body into v, reading at most
// wfMaxBody bytes.
func wfDecodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	return json.NewDecoder(http.MaxBytesReader(w, r.Body, wfMaxBody)).Decode(v)
}

// engineTimeLayout is how the engine writes dates: 2013-04-17T10:17:43.902+0000.
const engineTimeLayout = "2006-01-02T15:04:05.000-0700"

func wfFormatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(engineTimeLayout)
}

func wfFormatNullMillis(ms sql.NullInt64) *string {
	if !ms.Valid {
		return nil
	}
	s := wfFormatMillis(ms.Int64)
	return &s
}

func wfNullString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// wfError is a failure answered in the engine's error shape:
// {"message": "Not found", "exception": "Could not find a task with id '444'."}.
type wfError struct {
	status    int
	exception string
}

func (e *wfError) Error() string { return e.exception }

// message is the engine's fixed text for each status.
func (e *wfError) message() string {
	switch e.status {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusBadRequest:
		return "Bad request"
	case http.StatusConflict:
		return "Task was already claimed"
	}
	return "Internal server error"
}

func wfBadRequest(format string, args ...any) error {
	return &wfError{status: http.StatusBadRequest, exception: fmt.Sprintf(format, args...)}
}

func wfNotFound(format string, args ...any) error {
	return &wfError{status: http.StatusNotFound, exception: fmt.Sprintf(format, args...)}
}

// writeEngineError answers err; anything but a *wfError is a 500
// whose detail stays out of the body, as the engine does by default.
func writeEngineError(w http.ResponseWriter, err error) {
	var ee *wfError
	if !errors.As(err, &ee) {
		ee = &wfError{status: http.StatusInternalServerError}
	}
	body := struct {
		Message   string  `json:"message"`
		Exception *string `json:"exception"`
	}{Message: ee.message()}
	if ee.exception != "" {
		body.Exception = &ee.exception
	}
	writeEngineJSON(w, ee.status, body)
}

func writeEngineJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// wfRootURL is the base of the url members, as the engine derives it from
// the request.
func wfRootURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// wfList is the engine's list envelope; size is the number of items
// in data.
type wfList struct {
	Data  any    `json:"data"`
	Total int    `json:"total"`
	Start int    `json:"start"`
	Sort  string `json:"sort"`
	Order string `json:"order"`
	Size  int    `json:"size"`
}

// wfPage is a list request's paging: start, size, the sort property as the
// caller named it, its SQL expression and the order.
type wfPage struct {
	start, size int
	sort, expr  string
	order       string
}

// parseWFPage reads start, size, sort and order as the engine does: a
// negative start or size falls back to the default, a non-integer is 400,
// and so are a sort outside sorts and an order other than asc/desc.
func parseWFPage(q url.Values, defaultSort string, sorts map[string]string) (wfPage, error) {
	p := wfPage{start: 0, size: 10, sort: defaultSort, order: "asc"}
	for name, dst := range map[string]*int{"start": &p.start, "size": &p.size} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return wfPage{}, wfBadRequest("Illegal value for param '%s': '%s' is not an integer", name, v)
		}
		if n >= 0 {
			*dst = n
		}
	}
	if v := q.Get("sort"); v != "" {
		p.sort = v
	}
	expr, ok := sorts[p.sort]
	if !ok {
		return wfPage{}, wfBadRequest("Value for param 'sort' is not valid, '%s' is not a valid property", p.sort)
	}
	p.expr = expr
	if v := q.Get("order"); v != "" {
		p.order = v
	}
	if p.order != "asc" && p.order != "desc" {
		return wfPage{}, wfBadRequest("Value for param 'order' is not valid : '%s', must be 'asc' or 'desc'", p.order)
	}
	return p, nil
}

// orderBy is the ORDER BY ... LIMIT clause of p; ties go by id in the same
// direction (ids grow with creation), so pages do not overlap and records
// made in the same millisecond keep their creation order.
func (p wfPage) orderBy(idColumn string) string {
	return fmt.Sprintf(" ORDER BY %s %s, %s %s LIMIT %d OFFSET %d", p.expr, p.order, idColumn, p.order, p.size, p.start)
}

// wfPathID reads a numeric engine id from the path; anything else cannot
// name a record, so it is the same 404 as an unknown id.
func wfPathID(r *http.Request, notFoundFormat string) (int64, error) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, wfNotFound(notFoundFormat, raw)
	}
	return id, nil
}

// inTx runs fn in one transaction, committed when fn returns nil.
func (e *workflowEngine) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
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

// wfNextID allocates an id from the one sequence every record shares, as
// the engine's id generator does.
func wfNextID(tx *sql.Tx) (int64, error) {
	var id int64
	err := tx.QueryRow(`UPDATE wf_seq SET next = next + 1 WHERE name = 'id' RETURNING next - 1`).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("workflow: allocating id: %w", err)
	}
	return id, nil
}
