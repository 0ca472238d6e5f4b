package upstreams

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadStatusError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		status   int
		body     string
		wantKind Kind
		wantCode string
		wantMsg  string
	}{
		{desc: "Salesforce array", status: 400, body: `[{"errorCode": "INVALID_FIELD", "message": "name is required"}]`,
			wantKind: KindRejected, wantCode: "INVALID_FIELD", wantMsg: "name is required"},
		{desc: "Spring object", status: 400, body: `{"status":400,"error":"Bad Request","message":"invalid account id"}`,
			wantKind: KindRejected, wantMsg: "invalid account id"},
		{desc: "Spring object without message", status: 404, body: `{"status":404,"error":"Not Found"}`,
			wantKind: KindRejected, wantMsg: "Not Found"},
		{desc: "object with a code only", status: 403, body: `{"errorCode": "INSUFFICIENT_ACCESS"}`,
			wantKind: KindRejected, wantCode: "INSUFFICIENT_ACCESS", wantMsg: "Forbidden"},
		{desc: "Flowable's ErrorInfo", status: 403,
			body:     `{"message":"Forbidden","exception":"Cannot delete a task that is part of a process instance."}`,
			wantKind: KindRejected, wantMsg: "Forbidden: Cannot delete a task that is part of a process instance."},
		{desc: "Flowable's ErrorInfo of a 500 without its exception", status: 500, body: `{"message":"Internal server error"}`,
			wantKind: KindFailed, wantMsg: "Internal server error"},
		{desc: "plain text", status: 404, body: "no such feed\n", wantKind: KindRejected, wantMsg: "no such feed"},
		{desc: "empty", status: 500, wantKind: KindFailed, wantMsg: "Internal Server Error"},
		{desc: "redirect", status: 302, body: "moved", wantKind: KindFailed, wantMsg: "moved"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: tt.status, Body: io.NopCloser(strings.NewReader(tt.body))}
			ue := ReadStatusError("u", resp)
			assert.Equal(t, "u", ue.Upstream)
			assert.Equal(t, tt.wantKind, ue.Kind)
			assert.Equal(t, tt.status, ue.Status)
			assert.Equal(t, tt.wantCode, ue.Code)
			assert.Equal(t, tt.wantMsg, ue.Message)
		})
	}
}

func TestTrimMessage(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "down", TrimMessage(" down\n"))
	assert.Equal(t, "a\uFFFDb", TrimMessage("a\xffb"))
	long := TrimMessage(strings.Repeat("x", 3*MaxMessage))
	assert.Equal(t, strings.Repeat("x", MaxMessage)+"...", long)
	cut := TrimMessage("x" + strings.Repeat("é", MaxMessage))
	assert.True(t, utf8.ValidString(cut), "not cut inside a character")
	assert.LessOrEqual(t, len(cut), MaxMessage+3)
}

func TestTransportError(t *testing.T) {
	t.Parallel()
	shared := &Error{Upstream: "u", Kind: KindOpen}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, stop := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer stop()
	tests := []struct {
		desc string
		ctx  context.Context
		err  error
		want Kind
	}{
		{desc: "shared client error kept", ctx: context.Background(), err: shared, want: KindOpen},
		{desc: "connection reset", ctx: context.Background(), err: errors.New("connection reset by peer"), want: KindFailed},
		{desc: "caller gone", ctx: canceled, err: context.Canceled, want: KindCanceled},
		{desc: "deadline", ctx: expired, err: context.DeadlineExceeded, want: KindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			err := TransportError(tt.ctx, "u", tt.err)
			ue := AsError(err)
			require.NotNil(t, ue)
			assert.Equal(t, tt.want, ue.Kind)
			assert.Equal(t, "u", ue.Upstream)
			if tt.err == shared {
				assert.Same(t, shared, ue, "not wrapped again")
			} else {
				assert.ErrorIs(t, err, tt.err)
			}
		})
	}
}

func FuzzErrorOf(f *testing.F) {
	f.Add([]byte(`[{"errorCode": "E", "message": "m"}]`))
	f.Add([]byte(`{"message": "m", "error": "e"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte("\xff\xfe plain"))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, msg := errorOf(body)
		assert.LessOrEqual(t, len(msg), MaxMessage+3)
		assert.True(t, utf8.ValidString(msg), "%q", msg)
	})
}
