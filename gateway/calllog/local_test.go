package calllog

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type collected struct{ entries []Entry }

func (c *collected) Enqueue(e Entry) { c.entries = append(c.entries, e) }

func TestLocalWritesEachCallAndPassesItOn(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	next := &collected{}
	l := NewLocal(next, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})))
	e := Entry{Time: time.Now(), Method: "HTTPPOST", Path: "/v2/accounts", Status: 400, TotalTime: 1.5, UpstreamTime: 0.5,
		UserID: "alice", TraceID: "t1", Route: "/{version}/accounts", Version: "v2", ResponseCode: "PARAMETER_INVALID",
		Body: []byte(`{"password":"x"}`)}
	l.Enqueue(e)
	assert.Equal(t, []Entry{e}, next.entries)
	assert.Equal(t, `level=INFO msg="POST /v2/accounts 400" total_ms=1.5 upstream_ms=0.5 user_id=alice trace_id=t1 route=/{version}/accounts version=v2 code=PARAMETER_INVALID`+"\n", buf.String())
}
