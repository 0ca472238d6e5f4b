package dataapi

import (
	"net/http"
	"time"
)

// orgHeaders are what the real org sends on every REST answer, whatever
// the resource: it marks every answer uncacheable (Cache-Control with
// no-store and private, an Expires in 1970) and sets a BrowserId cookie.
// A response cache in front of it must be told to ignore them
// (upstreams.<name>.cache.backendHeaders: ignore) to keep anything.
func orgHeaders(h http.Header) {
	h.Set("Cache-Control", "no-cache,must-revalidate,max-age=0,no-store,private")
	h.Set("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")
	h.Set("Set-Cookie", "BrowserId=sandbox; Path=/; Domain=.salesforce.com; Max-Age=31536000")
	h.Set("Vary", "Accept-Encoding")
}

// unmodified answers a metadata resource (describe, describeGlobal) as the
// real org does ("Get Object Metadata Changes"): Last-Modified is when the
// metadata last changed, and an If-Modified-Since at or after it is
// answered 304 with no body. The sandbox's metadata is its code's, so it
// changes when the sandbox starts (modified). It reports whether the
// answer was sent.
func (a *api) unmodified(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Set("Last-Modified", a.modified.UTC().Format(http.TimeFormat))
	since, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	if err != nil || a.modified.After(since) {
		return false
	}
	w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
	w.WriteHeader(http.StatusNotModified)
	return true
}
