package upstreams

import "net/http"

// Reject closes resp's body and returns err. When err is a KindInvalid
// *Error (the adapter cannot use a 2xx answer: not JSON, too large, not the
// shape of the backend's contract) and resp is an answer of a shared
// Client, the call ends as invalid instead of as a success: the
// upstream-call metric's outcome "invalid", and a failure for the breaker,
// so that a backend answering 200 with garbage is taken out of use like one
// answering 500. Any other err (nil, a refusal the adapter read from the
// answer) leaves the call a success. Call it before the body's Close: the
// first of the two ends the call. The usual form is
//
//	return nil, upstreams.Reject(resp, invalid(...))
func Reject(resp *http.Response, err error) error {
	if b, ok := resp.Body.(*body); ok {
		if ue := AsError(err); ue != nil && ue.Kind == KindInvalid {
			b.reject(ue)
		}
	}
	_ = resp.Body.Close()
	return err
}
