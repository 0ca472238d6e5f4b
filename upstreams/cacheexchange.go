package upstreams

import (
	"errors"
	"net/http"
	"sync"
)

// ErrNotModified is wrapped by the *Error of a call that sent a response
// cache's validators (CacheExchange) and got 304 Not Modified: the answer
// the cache holds is still the backend's. The cache, not the adapter,
// decides what the request answers then.
var ErrNotModified = errors.New("the backend answered 304 Not Modified: the stored answer is current")

// AnswerHeaders are the caching headers of a backend's answer, as a
// response cache reads them (RFC 9111): its status, Cache-Control,
// Expires, Date, Age, Vary, validators, and whether it set a cookie.
type AnswerHeaders struct {
	Status       int
	CacheControl string
	Expires      string
	Date         string
	Age          string
	Vary         string
	ETag         string
	LastModified string
	SetCookie    bool
}

// readAnswerHeaders reads h's caching headers.
func readAnswerHeaders(status int, h http.Header) AnswerHeaders {
	return AnswerHeaders{Status: status, CacheControl: joined(h, "Cache-Control"), Expires: h.Get("Expires"),
		Date: h.Get("Date"), Age: h.Get("Age"), Vary: joined(h, "Vary"), ETag: h.Get("Etag"),
		LastModified: h.Get("Last-Modified"), SetCookie: len(h["Set-Cookie"]) > 0}
}

func joined(h http.Header, name string) string {
	v := h[name]
	switch len(v) {
	case 0:
		return ""
	case 1:
		return v[0]
	}
	out := v[0]
	for _, s := range v[1:] {
		out += ", " + s
	}
	return out
}

// CacheExchange is what a response cache asks of, and learns from, the
// backend calls of one request (CallState.Cache): the validators to send on
// its first GET, and what that call's answer said (its caching headers, or
// 304). Only the first call of the request is conditional and read: a
// handler's first call fetches what it answers, later ones fetch what helps
// it (a describe for a key map), and an answer made of several calls is
// revalidated by fetching it again (Calls tells). Safe for concurrent use.
type CacheExchange struct {
	// IfNoneMatch and IfModifiedSince, when set, are sent as
	// If-None-Match and If-Modified-Since on the request's first call
	// when it is a GET. Set them before the state is shared.
	IfNoneMatch     string
	IfModifiedSince string

	mu          sync.Mutex
	calls       int
	first       AnswerHeaders
	answered    bool
	notModified bool
}

// begin counts a call and reports whether it is the first.
func (x *CacheExchange) begin() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.calls++
	return x.calls == 1
}

// conditional reports whether req, the first call, carries validators.
func (x *CacheExchange) conditional(req *http.Request) bool {
	return req.Method == http.MethodGet && (x.IfNoneMatch != "" || x.IfModifiedSince != "")
}

// setValidators puts the validators on h, an attempt's own header map.
func (x *CacheExchange) setValidators(h http.Header) {
	if x.IfNoneMatch != "" {
		h["If-None-Match"] = []string{x.IfNoneMatch}
	}
	if x.IfModifiedSince != "" {
		h["If-Modified-Since"] = []string{x.IfModifiedSince}
	}
}

// record keeps the first call's answer headers; notModified says it was
// the 304 of a conditional call.
func (x *CacheExchange) record(resp *http.Response, notModified bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.first, x.answered, x.notModified = readAnswerHeaders(resp.StatusCode, resp.Header), true, notModified
}

// Calls is how many backend calls the request made so far.
func (x *CacheExchange) Calls() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.calls
}

// First returns the caching headers of the first call's answer; false when
// it got none (it failed, or no call was made).
func (x *CacheExchange) First() (AnswerHeaders, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.first, x.answered
}

// NotModified reports whether the first call was conditional and the
// backend answered 304.
func (x *CacheExchange) NotModified() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.notModified
}
