package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/upstreams"
)

// Recorder receives the request metrics (gateway/metrics implements it).
type Recorder interface {
	RequestStarted()
	RequestDone()
	ObserveRequest(route, method, version string, status int, total, upstream time.Duration)
	CountError(id string)
	CountDuplicate(route string)
}

// CallLog takes one entry per call without blocking (calllog.Shipper).
type CallLog interface {
	Enqueue(e calllog.Entry)
}

// Duplicates says whether the same request was seen within its window
// (duplicates.Detector in one process, gateway/cluster's store across
// replicas). Seen must return within a bounded time whatever ctx says.
type Duplicates interface {
	Seen(ctx context.Context, req duplicates.Request, now time.Time) bool
}

// Unmatched is the route label of requests no route matched.
const Unmatched = "unmatched"

// ObserveDeps are what Observe reports to.
type ObserveDeps struct {
	Metrics    Recorder
	Log        CallLog
	Duplicates Duplicates
	Logger     *slog.Logger
	// Slow: calls slower than this are logged at warning level.
	Slow time.Duration
	Now  func() time.Time
}

// Observe records every call after it was answered: the latency histograms
// (total, gateway, upstream), the error counter by response-code id, the
// duplicate detector, the asynchronous call log entry and, for slow calls, a
// warning in the local log. Labels are route templates, never raw paths.
func Observe(next http.Handler, d ObserveDeps) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		d.Metrics.RequestStarted()
		defer d.Metrics.RequestDone()
		next.ServeHTTP(rw, r)
		c := call.From(r.Context())
		route := Unmatched
		if c.Route != nil {
			route = c.Route.Template
		}
		status := c.Status
		if status == 0 {
			status = http.StatusOK
		}
		if r.Context().Err() != nil {
			status = upstreams.StatusClientClosedRequest // the client went away; nobody failed
		}
		total := time.Duration(c.TotalMillis * float64(time.Millisecond))
		upstream := c.Upstream.Timing.Total()
		d.Metrics.ObserveRequest(route, r.Method, c.Version, status, total, upstream)
		if c.CodeID != "" {
			d.Metrics.CountError(c.CodeID)
		}
		now := d.Now()
		dup := d.Duplicates.Seen(r.Context(), duplicateKey(r, c), now)
		if dup {
			d.Metrics.CountDuplicate(route)
		}
		text := statusText(status)
		if c.CodeID != "" {
			text += " " + c.CodeID
		}
		d.Log.Enqueue(calllog.Entry{
			Time: c.Start, Text: text, UserID: c.Identity.UserID, TraceID: c.TraceID,
			SpanID: c.Upstream.Trace.SpanContext().SpanID(), TraceFlags: c.Upstream.Trace.SpanContext().TraceFlags(),
			TotalTime: c.TotalMillis, Method: "HTTP" + r.Method, Path: r.URL.Path, Body: c.Body,
			Route: route, Version: c.Version, ResponseCode: c.CodeID, Status: status,
			UpstreamTime: float64(upstream) / float64(time.Millisecond), Duplicate: dup,
		})
		if total >= d.Slow {
			d.Logger.Warn("slow call", "route", route, "method", r.Method, "status", status,
				"total_ms", c.TotalMillis, "upstream_ms", float64(upstream)/float64(time.Millisecond),
				"trace_id", c.TraceID, "user_id", c.Identity.UserID)
		}
	})
}

// duplicateKey is what makes two calls the same: the user, the method, the
// path with its ids and the query as sent, and the body.
func duplicateKey(r *http.Request, c *call.Call) duplicates.Request {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	return duplicates.Request{User: c.Identity.UserID, Method: r.Method, Path: path, Query: r.URL.RawQuery, Body: c.Body}
}

// statusText is status in decimal; the common successes need no
// allocation (strconv.Itoa allocates from 100 on).
func statusText(status int) string {
	switch status {
	case http.StatusOK:
		return "200"
	case http.StatusCreated:
		return "201"
	case http.StatusNoContent:
		return "204"
	}
	return strconv.Itoa(status)
}
