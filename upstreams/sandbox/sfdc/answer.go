package sfdc

import (
	"encoding/json"
	"net/http"
)

// Error is one element of the error array the org's REST APIs (data API,
// Connect, feed) answer with.
type Error struct {
	Message   string `json:"message"`
	ErrorCode string `json:"errorCode"`
}

// Errors is the one-element error array of code and message.
func Errors(code, message string) []Error {
	return []Error{{Message: message, ErrorCode: code}}
}

// WriteJSON answers v with status the way the org's REST APIs do
// (application/json;charset=UTF-8). v is encoded before anything is
// written, so a value that cannot be encoded is still a clean 500.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`[{"message":"An unexpected error occurred.","errorCode":"UNKNOWN_EXCEPTION"}]`)
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// WriteError answers the error array of code and message with status.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	WriteJSON(w, status, Errors(code, message))
}
