package workflow_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/workflow"
)

type failingDoer struct{ err error }

func (d failingDoer) Do(*http.Request) (*http.Response, error) { return nil, d.err }

func TestTransportErrors(t *testing.T) {
	t.Parallel()
	fromClient := &upstreams.Error{Upstream: "workflow", Kind: upstreams.KindOpen, RetryAfter: time.Second}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		desc string
		ctx  context.Context
		err  error
		kind upstreams.Kind
	}{
		{"shared client error kept", context.Background(), fromClient, upstreams.KindOpen},
		{"connection refused", context.Background(), errors.New("dial tcp: connection refused"), upstreams.KindFailed},
		{"deadline", context.Background(), context.DeadlineExceeded, upstreams.KindTimeout},
		{"caller went away", canceled, context.Canceled, upstreams.KindCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c := workflow.New("http://engine.invalid/service", failingDoer{tt.err}, workflow.Options{})
			_, err := c.Task(tt.ctx, "8")
			ue := upstreams.AsError(err)
			require.NotNil(t, ue)
			assert.Equal(t, tt.kind, ue.Kind)
			assert.Equal(t, "workflow", ue.Upstream)
		})
	}
	_, err := workflow.New("http://engine.invalid", failingDoer{fromClient}, workflow.Options{}).Task(context.Background(), "8")
	assert.Same(t, fromClient, upstreams.AsError(err))
}

func BenchmarkTasks(b *testing.B) {
	page := `{"data":[` + taskJSON + `,` + taskJSON + `,` + taskJSON + `],"total":3,"start":0,"sort":"id","order":"asc","size":3}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(page))
	}))
	defer srv.Close()
	c := workflow.New(srv.URL, srv.Client(), workflow.Options{})
	q := workflow.TaskQuery{Status: "open", Candidate: "gonzo", Size: 50, Order: "desc"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Tasks(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseTaskQuery(b *testing.B) {
	q := map[string][]string{"status": {"closed"}, "candidate": {"gonzo"}, "size": {"100"}, "order": {"asc"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := workflow.ParseTaskQuery(q); err != nil {
			b.Fatal(err)
		}
	}
}
