package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// engineError is a failure answered in the engine's error shape:
// {"message": "Not found", "exception": "Could not find a task with id '444'."}.
type engineError struct {
	status    int
	exception string
}

func (e *engineError) Error() string { return e.exception }

// message is the engine's fixed text for each status.
func (e *engineError) message() string {
	switch e.status {
	case http.StatusNotFound:
		return "Not found"
	case http.StatusBadRequest:
		return "Bad request"
	case http.StatusConflict:
		return "Task was already claimed"
	case http.StatusForbidden:
		return "Forbidden"
	}
	return "Internal server error"
}

func badRequest(format string, args ...any) error {
	return &engineError{status: http.StatusBadRequest, exception: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &engineError{status: http.StatusNotFound, exception: fmt.Sprintf(format, args...)}
}

// writeError answers err as BaseExceptionHandlerAdvice does; anything but
// a *engineError is a 500 whose detail stays out of the body, as the
// engine does by default.
func writeError(w http.ResponseWriter, err error) {
	var ee *engineError
	if !errors.As(err, &ee) {
		ee = &engineError{status: http.StatusInternalServerError}
	}
	body := struct {
		Message   string  `json:"message"`
		Exception *string `json:"exception,omitempty"` // ErrorInfo: @JsonInclude(NON_NULL)
	}{Message: ee.message()}
	// The engine writes no exception for a 500 unless configured to
	// (flowable.common.rest.exception.return-messages-for-500-errors).
	if ee.exception != "" && ee.status != http.StatusInternalServerError {
		body.Exception = &ee.exception
	}
	writeJSON(w, ee.status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// rootURL is the base of the url members, as the engine derives it from
// the request.
func rootURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
