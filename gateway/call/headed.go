package call

import "net/http"

// HeadedError is an error answered with more headers: a response cache's
// Cache-Status and Age on the backend's 404 it kept. The error envelope is
// Err's, rendered for each request as any error is.
type HeadedError struct {
	Err    error
	Header http.Header
}

// Error is Err's message.
func (e *HeadedError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *HeadedError) Unwrap() error { return e.Err }
