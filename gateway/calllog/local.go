package calllog

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
)

// Enqueuer takes call log entries without blocking (a Shipper).
type Enqueuer interface {
	Enqueue(e Entry)
}

// Local passes every entry on to the collector's queue and writes it to the
// gateway's own log at info, as "GET /v2/accounts 200" with the call's
// times, user, trace id, route and response code: what a person running the
// gateway in a terminal wants to see of each call. The body is not written:
// the local log is not redacted.
type Local struct {
	next   Enqueuer
	logger *slog.Logger
}

// NewLocal returns a Local that writes to logger and passes entries to next.
func NewLocal(next Enqueuer, logger *slog.Logger) *Local {
	return &Local{next: next, logger: logger}
}

// Enqueue implements Enqueuer.
func (l *Local) Enqueue(e Entry) {
	l.next.Enqueue(e)
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs, slog.Float64("total_ms", e.TotalTime), slog.Float64("upstream_ms", e.UpstreamTime),
		slog.String("user_id", e.UserID), slog.String("trace_id", e.TraceID), slog.String("route", e.Route))
	if e.Version != "" {
		attrs = append(attrs, slog.String("version", e.Version))
	}
	if e.ResponseCode != "" {
		attrs = append(attrs, slog.String("code", e.ResponseCode))
	}
	if e.Duplicate {
		attrs = append(attrs, slog.Bool("duplicate", true))
	}
	if e.APIUsage.Limit > 0 {
		attrs = append(attrs, slog.String("api_usage", strconv.FormatInt(e.APIUsage.Used, 10)+"/"+strconv.FormatInt(e.APIUsage.Limit, 10)))
	}
	msg := strings.TrimPrefix(e.Method, "HTTP") + " " + e.Path + " " + strconv.Itoa(e.Status)
	l.logger.LogAttrs(context.Background(), slog.LevelInfo, msg, attrs...)
}
