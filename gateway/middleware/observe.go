package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/upstreams"
)

// Recorder receives the request metrics (gateway/metrics implements it).
type Recorder interface {
	RequestStarted()
	RequestDone()
	ObserveRequest(route, method, version string, status int, total, upstream time.Duration, traceID string)
	CountError(id string, status int)
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

// Unmatched is the route of requests no route matched in the call log and
// the slow-call warning (the metrics get "" and record their own
// placeholder).
const Unmatched = "unmatched"

// ObserveDeps are what Observe reports to.
type ObserveDeps struct {
	Metrics    Recorder
	Log        CallLog
	Duplicates Duplicates
	Logger     *slog.Logger
	// Activity keeps the recent calls the console shows; nil (recording
	// off) keeps nothing.
	Activity *activity.Recorder
	// Slow: calls slower than this are logged at warning level.
	Slow time.Duration
	Now  func() time.Time
}

// Observe records every call after it was answered: the latency histograms
// (total, gateway, upstream), the error counter by response-code id, the
// duplicate detector, the asynchronous call log entry and, for slow calls, a
// warning in the local log, and the console's recording. Labels are route
// templates, never raw paths.
// A request whose trace is recorded (tracing on and sampled) gives its trace
// id to the latency histogram as an exemplar.
func Observe(next http.Handler, d ObserveDeps) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		d.Metrics.RequestStarted()
		defer d.Metrics.RequestDone()
		next.ServeHTTP(rw, r)
		c := call.From(r.Context())
		template, route := "", Unmatched
		if c.Route != nil {
			template, route = c.Route.Template, c.Route.Template
		}
		status := answeredStatus(r, c)
		total := time.Duration(c.TotalMillis * float64(time.Millisecond))
		upstream := c.Upstream.Timing.Total()
		var exemplar string
		if trace.SpanFromContext(r.Context()).IsRecording() {
			exemplar = c.TraceID
		}
		d.Metrics.ObserveRequest(template, r.Method, c.Version, status, total, upstream, exemplar)
		if c.CodeID != "" {
			d.Metrics.CountError(c.CodeID, status)
		}
		now := d.Now()
		dup := d.Duplicates.Seen(r.Context(), duplicateKey(r, c), now)
		if dup {
			d.Metrics.CountDuplicate(template)
		}
		usage, _ := c.Upstream.Usage.Load()
		text := statusText(status)
		if c.CodeID != "" {
			text += " " + c.CodeID
		}
		d.Log.Enqueue(calllog.Entry{
			Time: c.Start, Text: text, UserID: c.Identity.UserID, TraceID: c.TraceID,
			SpanID: c.Upstream.Trace.SpanContext().SpanID(), TraceFlags: c.Upstream.Trace.SpanContext().TraceFlags(),
			TotalTime: c.TotalMillis, Method: call.LoggedMethod(r.Method), Path: r.URL.Path, Body: c.Body,
			Route: route, Version: c.Version, ResponseCode: c.CodeID, Status: status,
			UpstreamTime: float64(upstream) / float64(time.Millisecond), Duplicate: dup, APIUsage: usage,
		})
		d.Activity.Record(&activity.Call{Start: c.Start, End: now, Method: r.Method, Route: template, Version: c.Version,
			Path: r.URL.Path, User: c.Identity.UserID, TraceID: c.TraceID, Total: total, Upstream: upstream,
			Status: status, Code: c.CodeID, SystemMessage: c.SystemMessage, ErrorUpstream: c.ErrorUpstream,
			Body: c.Body, Duplicate: dup})
		if total >= d.Slow {
			d.Logger.Warn("slow call", "route", route, "method", r.Method, "status", status,
				"total_ms", c.TotalMillis, "upstream_ms", float64(upstream)/float64(time.Millisecond),
				"trace_id", c.TraceID, "user_id", c.Identity.UserID)
		}
	})
}

// answeredStatus is the status a request is measured, traced and logged
// with: the writer's (an error's own status, also under
// errors.statusMode always200), 200 when nothing was written, and 499 when
// the client went away before the answer.
func answeredStatus(r *http.Request, c *call.Call) int {
	if r.Context().Err() != nil {
		return upstreams.StatusClientClosedRequest // the client went away; nobody failed
	}
	if c.Status == 0 {
		return http.StatusOK
	}
	return c.Status
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
