package feed

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// strictFeed checks the request the way the contract states it and answers
// with status and body.
func strictFeed(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, "/base/sfdc/public/feed", r.URL.Path)
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		var got struct {
			Name    *string `json:"name"`
			Message *string `json:"message"`
		}
		if assert.NoError(t, dec.Decode(&got)) && assert.NotNil(t, got.Name) && assert.NotNil(t, got.Message) {
			assert.Equal(t, "Ana <ana@example.com>", *got.Name)
			assert.Equal(t, "héllo \"world\"\n", *got.Message)
		}
		if body != "" {
			w.Header().Set("Content-Type", "text/plain")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		status   int
		body     string
		wantKind upstreams.Kind
		wantCode string
		wantMsg  string
	}{
		{desc: "201 with JSON", status: 201, body: `{"id": "a1", "name": "x", "message": "y"}`},
		{desc: "200 with text", status: 200, body: `ok, posted`},
		{desc: "204 without body", status: 204},
		{desc: "202 with HTML", status: 202, body: `<html>accepted</html>`},
		{desc: "400 Salesforce array", status: 400, body: `[{"errorCode": "INVALID_FIELD", "message": "name is required"}]`,
			wantKind: upstreams.KindRejected, wantCode: "INVALID_FIELD", wantMsg: "name is required"},
		{desc: "404 plain text", status: 404, body: `no such feed`, wantKind: upstreams.KindRejected, wantMsg: "no such feed"},
		{desc: "403 object", status: 403, body: `{"error": "forbidden"}`, wantKind: upstreams.KindRejected, wantMsg: "forbidden"},
		{desc: "500 empty", status: 500, wantKind: upstreams.KindFailed, wantMsg: "Internal Server Error"},
		{desc: "302 is not success", status: 302, body: "moved", wantKind: upstreams.KindFailed, wantMsg: "moved"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := strictFeed(t, tt.status, tt.body)
			// its own transport: httptest's Close of another subtest's server
			// closes http.DefaultTransport's idle connections, which breaks
			// one this subtest is about to use
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			noRedirect := &http.Client{Transport: tr,
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			err := New(srv.URL+"/base/", noRedirect).Post(context.Background(), "Ana <ana@example.com>", "héllo \"world\"\n")
			if tt.wantKind == 0 {
				assert.NoError(t, err)
				return
			}
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "error %v", err)
			assert.Equal(t, Name, ue.Upstream)
			assert.Equal(t, tt.wantKind, ue.Kind)
			assert.Equal(t, tt.status, ue.Status)
			assert.Equal(t, tt.wantCode, ue.Code)
			assert.Equal(t, tt.wantMsg, ue.Message)
		})
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

func TestPostTransportFailures(t *testing.T) {
	t.Parallel()
	shared := &upstreams.Error{Upstream: Name, Kind: upstreams.KindOpen}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	tests := []struct {
		desc string
		ctx  context.Context
		err  error
		want upstreams.Kind
	}{
		{desc: "shared client error kept", ctx: context.Background(), err: shared, want: upstreams.KindOpen},
		{desc: "connection reset", ctx: context.Background(), err: errors.New("connection reset by peer"), want: upstreams.KindFailed},
		{desc: "caller gone", ctx: canceled, err: context.Canceled, want: upstreams.KindCanceled},
		{desc: "deadline", ctx: expired, err: context.DeadlineExceeded, want: upstreams.KindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c := New("http://feed.invalid", doerFunc(func(*http.Request) (*http.Response, error) { return nil, tt.err }))
			ue := upstreams.AsError(c.Post(tt.ctx, "n", "m"))
			require.NotNil(t, ue)
			assert.Equal(t, tt.want, ue.Kind)
		})
	}
}

func TestErrorMessageIsBounded(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, strings.Repeat("x", 10_000))
	}))
	defer srv.Close()
	ue := upstreams.AsError(New(srv.URL, srv.Client()).Post(context.Background(), "n", "m"))
	require.NotNil(t, ue)
	assert.LessOrEqual(t, len(ue.Message), upstreams.MaxMessage+3)
}
