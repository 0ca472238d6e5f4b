// Package envelope holds the gateway's one error catalogue and the JSON
// envelope every answer is wrapped in. Every response code keeps one id, one
// number and one HTTP status family everywhere: in the envelope, in the
// errors_total metric label and in the call log.
package envelope

import "net/http"

// Response-code ids. The first ten are the seed's; the rest are the
// gateway's additions in the same form.
const (
	URLInvalid              = "URL_INVALID"
	QueryOperationFailed    = "QUERY_OPERATION_FAILED"
	SObjectOperationFailed  = "SOBJECT_OPERATION_FAILED"
	JSONSerializationFailed = "JSON_SERIALIZATION_FAILED"
	DatabaseOperationFailed = "DATABASE_OPERATION_FAILED"
	CalloutFailed           = "CALLOUT_FAILED"
	SearchFailed            = "SEARCH_FAILED"
	RestDispatcherDebug     = "REST_DISPATCHER_DEBUG"
	SerializationFailed     = "SERIALIZATION_FAILED"
	RestDispatcherFailed    = "REST_DISPATCHER_FAILED"
	UnexpectedResponseCode  = "UNEXPECTED_RESPONSE_CODE"
	AuthenticationRequired  = "AUTHENTICATION_REQUIRED"
	AccessDenied            = "ACCESS_DENIED"
	RequestTooLarge         = "REQUEST_TOO_LARGE"
	RateLimited             = "RATE_LIMITED"
	ParameterInvalid        = "PARAMETER_INVALID"
)

// ArgKind says which arguments a code's system template takes; the writer
// fills the per-call ones itself so handlers never pass them.
type ArgKind int

const (
	// ArgsGiven: the arguments are the ones the Error carries.
	ArgsGiven ArgKind = iota
	// ArgsCall: the six call arguments user id, trace id, total time,
	// method, path, body (codes 991-997 and 999).
	ArgsCall
	// ArgsRequest: user id, method, path, body (URL_INVALID).
	ArgsRequest
)

// ResponseCode is one entry of the catalogue. Templates use positional
// placeholders {0}, {1} ...
type ResponseCode struct {
	ID             string
	Code           int
	ClientTemplate string
	SystemTemplate string
	// Status is the code's default HTTP status; an Error may narrow it within
	// the code's family (the upstream's 4xx, 503 for an open breaker ...).
	Status int
	// Args says who supplies the template arguments.
	Args ArgKind
}

const callArgs = " UserId: {0} | TraceId: {1} | TotalTime: {2} | Method: {3} | Path: {4} | Body: {5}"

// Catalogue returns every response code by id. It is built anew on each call;
// callers keep the result (see Lookup for the one-off form).
func Catalogue() map[string]ResponseCode {
	codes := []ResponseCode{
		{URLInvalid, 989, "Incorrect operation, please try again",
			"Invalid URL or operation. UserId: {0} | Method: {1} | Path: {2} | Body: {3}", http.StatusNotFound, ArgsRequest},
		{QueryOperationFailed, 991, "Encountered an error", "Query operation failed." + callArgs, http.StatusBadGateway, ArgsCall},
		{SObjectOperationFailed, 992, "Encountered an error", "Record operation failed." + callArgs, http.StatusBadGateway, ArgsCall},
		{JSONSerializationFailed, 993, "Encountered an error", "JSON serialization failed." + callArgs, http.StatusBadRequest, ArgsCall},
		{DatabaseOperationFailed, 994, "Encountered an error", "Database operation failed." + callArgs, http.StatusInternalServerError, ArgsCall},
		{CalloutFailed, 995, "Encountered an error", "Callout failed." + callArgs, http.StatusBadGateway, ArgsCall},
		{SearchFailed, 996, "Searching failed, try again", "Search failed." + callArgs, http.StatusBadGateway, ArgsCall},
		{RestDispatcherDebug, 997, "Encountered an error", "Debug." + callArgs, http.StatusInternalServerError, ArgsCall},
		{SerializationFailed, 998, "Encountered an error: {0}", "Serialization failed: {0}", http.StatusInternalServerError, ArgsGiven},
		{RestDispatcherFailed, 999, "Encountered an error", "Dispatch failed." + callArgs, http.StatusInternalServerError, ArgsCall},
		{UnexpectedResponseCode, 900, "Unexpected response code {0}", "Unexpected response code {0}", http.StatusInternalServerError, ArgsGiven},
		{AuthenticationRequired, 980, "Authentication required", "Authentication failed: {0}", http.StatusUnauthorized, ArgsGiven},
		{AccessDenied, 981, "Access denied", "Access denied: user {0} lacks a role of {1}", http.StatusForbidden, ArgsGiven},
		{RequestTooLarge, 982, "Request too large: {0}", "Request too large: {0}", http.StatusRequestEntityTooLarge, ArgsGiven},
		{RateLimited, 983, "Too many requests, retry after {0} seconds", "Rate limit exceeded for user {1}; retry after {0} seconds", http.StatusTooManyRequests, ArgsGiven},
		{ParameterInvalid, 984, "Invalid parameter {0}: {1}", "Invalid parameter {0}: {1}", http.StatusBadRequest, ArgsGiven},
	}
	m := make(map[string]ResponseCode, len(codes))
	for _, c := range codes {
		m[c.ID] = c
	}
	return m
}
