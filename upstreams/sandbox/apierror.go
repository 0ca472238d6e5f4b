package sandbox

import (
	"encoding/json"
	"net/http"
)

// apiError is one element of the error array that the Salesforce-style
// sandboxes (data API, batch upload, feed) answer with.
type apiError struct {
	Message   string `json:"message"`
	ErrorCode string `json:"errorCode"`
}

// apiErrors is the one-element error array of code and message.
func apiErrors(code, message string) []apiError {
	return []apiError{{Message: message, ErrorCode: code}}
}

// writeAPIJSON answers v with status the way the Salesforce-style sandboxes
// do. v is encoded before anything is written, so a value that cannot be
// encoded is still a clean 500.
func writeAPIJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`[{"message":"An unexpected error occurred.","errorCode":"UNKNOWN_EXCEPTION"}]`)
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeAPIError answers the error array of code and message with status.
func writeAPIError(w http.ResponseWriter, status int, code, message string) {
	writeAPIJSON(w, status, apiErrors(code, message))
}
