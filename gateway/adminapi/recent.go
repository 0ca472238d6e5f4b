package adminapi

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/restgate/gateway/gateway/activity"
)

// defaultLimit is the limit parameter's default.
const defaultLimit = 50

type slowCallsAnswer struct {
	Recording bool   `json:"recording"`
	Window    string `json:"window"`
	// SlowThresholdMs is log.slowThreshold: calls at least this slow are
	// also logged as slow.
	SlowThresholdMs float64          `json:"slowThresholdMs"`
	Calls           []slowCallAnswer `json:"calls"`
}

type slowCallAnswer struct {
	activity.SlowCall
	// TraceURL links the trace in the tracing UI (console.traceURL); ""
	// when none is configured.
	TraceURL string `json:"traceURL"`
}

func (a *api) slowCalls(r *http.Request) (any, error) {
	w, limit, err := windowAndLimit(r)
	if err != nil {
		return nil, err
	}
	cfg := a.src.Serving().Config
	ans := slowCallsAnswer{Recording: a.src.Activity != nil, Window: w.Name, Calls: []slowCallAnswer{},
		SlowThresholdMs: float64(cfg.Log.SlowThreshold.Microseconds()) / 1000}
	for _, c := range a.src.Activity.SlowCalls(w, limit) {
		ans.Calls = append(ans.Calls, slowCallAnswer{SlowCall: c, TraceURL: traceLink(cfg.Console.TraceURL, c.TraceID)})
	}
	return ans, nil
}

// traceLink is the tracing UI's address of a trace, "" without a
// template or a trace id.
func traceLink(template, traceID string) string {
	if template == "" || traceID == "" {
		return ""
	}
	return strings.ReplaceAll(template, "{traceId}", url.PathEscape(traceID))
}

type duplicatesAnswer struct {
	Recording bool                     `json:"recording"`
	Window    string                   `json:"window"`
	Users     []activity.DuplicateUser `json:"users"`
}

func (a *api) duplicates(r *http.Request) (any, error) {
	w, limit, err := windowAndLimit(r)
	if err != nil {
		return nil, err
	}
	return duplicatesAnswer{Recording: a.src.Activity != nil, Window: w.Name, Users: orEmpty(a.src.Activity.Duplicates(w, limit))}, nil
}

// windowAndLimit are the window and limit parameters of an operation
// taking those two only.
func windowAndLimit(r *http.Request) (activity.Window, int, error) {
	q, err := parseQuery(r, "window", "limit")
	if err != nil {
		return activity.Window{}, 0, err
	}
	w, err := q.window()
	if err != nil {
		return w, 0, err
	}
	limit, err := q.limit(defaultLimit)
	return w, limit, err
}

type errorsAnswer struct {
	Recording bool                 `json:"recording"`
	Codes     []activity.ErrorCode `json:"codes"`
}

func (a *api) errors(r *http.Request) (any, error) {
	if err := noQuery(r); err != nil {
		return nil, err
	}
	return errorsAnswer{Recording: a.src.Activity != nil, Codes: orEmpty(a.src.Activity.Errors())}, nil
}
