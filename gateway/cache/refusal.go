package cache

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/upstreams"
)

// refusal is how a kept 404 (Entry.Refusal) is stored: the error the
// route's handler returned for the backend's 404, an *envelope.Error whose
// cause is the backend's *upstreams.Error, with all that renders it, so
// that each request that reads it is answered the same error envelope,
// with its own members, as the request that fetched it.
type refusal struct {
	ID       string   `json:"id"`
	Args     []string `json:"args,omitempty"`
	Detail   string   `json:"detail,omitempty"`
	Status   int      `json:"status"`
	Upstream string   `json:"upstream"`
	Code     string   `json:"code,omitempty"`
	Message  string   `json:"message,omitempty"`
	Err      string   `json:"err,omitempty"`
}

// encodeRefusal encodes err when it is the backend's 404 as the handlers
// report it (call.Upstream); false otherwise.
func encodeRefusal(err error) ([]byte, bool) {
	ee, ok := err.(*envelope.Error)
	if !ok || ee.Status != http.StatusNotFound || ee.RetryAfter != 0 || len(ee.Allow) > 0 {
		return nil, false
	}
	ue, ok := ee.Cause.(*upstreams.Error)
	if !ok || ue.Kind != upstreams.KindRejected || ue.Status != http.StatusNotFound {
		return nil, false
	}
	r := refusal{ID: ee.ID, Args: ee.Args, Detail: ee.Detail, Status: ee.Status, Upstream: ue.Upstream, Code: ue.Code,
		Message: ue.Message}
	if ue.Err != nil {
		r.Err = ue.Err.Error()
	}
	b, err := json.Marshal(r)
	return b, err == nil
}

// decodeRefusal reads what encodeRefusal wrote.
func decodeRefusal(b []byte) (*envelope.Error, error) {
	var r refusal
	if err := json.Unmarshal(b, &r); err != nil || r.ID == "" || r.Status != http.StatusNotFound {
		return nil, errCorrupt
	}
	ue := &upstreams.Error{Upstream: r.Upstream, Kind: upstreams.KindRejected, Status: r.Status, Code: r.Code, Message: r.Message}
	if r.Err != "" {
		ue.Err = errors.New(r.Err)
	}
	return &envelope.Error{ID: r.ID, Args: r.Args, Detail: r.Detail, Status: r.Status, Cause: ue}, nil
}

// notFound is the entry of the backend's 404 that err reports, fresh for
// the route's notFoundTTL (or less, when the backend's headers say so) and
// never served stale; nil when the route keeps no 404, err is not one, or
// the backend's headers keep it out.
func (rd *reader) notFound(err error, x *upstreams.CacheExchange, now time.Time) *Entry {
	pol := rd.rp.Policy
	first, answered := x.First()
	if pol.NotFoundTTL <= 0 || !answered || first.Status != http.StatusNotFound || x.Calls() != 1 {
		return nil
	}
	body, ok := encodeRefusal(err)
	if !ok {
		return nil
	}
	v := pol.judge(first, now)
	if !v.store || v.fresh <= 0 {
		return nil
	}
	rf, _ := decodeRefusal(body) // what every later read renders, from the first
	a := call.Rendered{Status: http.StatusNotFound, Body: body}
	fresh := now.Add(min(pol.NotFoundTTL, v.fresh))
	return &Entry{Answer: a, ETag: etagOf(&a), Stored: now, Fresh: fresh, Until: fresh, NoStale: true, Refusal: rf}
}
