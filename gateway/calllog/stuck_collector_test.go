package calllog

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// The collector failing in every way, and closing: none may reach Enqueue.

// TestShipperNeverBlocksEnqueue shows that a collector that is dead, hangs,
// or refuses everything never holds up Enqueue: many more entries than the
// queue holds go in while the senders are stuck. At Close every entry is
// accounted for, and a Close whose deadline has passed while a batch is
// still held returns that deadline's error with the entries it lost.
func TestShipperNeverBlocksEnqueue(t *testing.T) {
	t.Parallel()
	dead := deadURL(t)
	tests := []struct {
		desc string
		url  func(t *testing.T, release <-chan struct{}, arrived chan<- struct{}) string
	}{
		{desc: "dead collector", url: func(*testing.T, <-chan struct{}, chan<- struct{}) string { return dead }},
		{
			desc: "hanging collector",
			url: func(t *testing.T, release <-chan struct{}, arrived chan<- struct{}) string {
				return newCollector(t, func(_ int64, r *http.Request) int {
					signal(arrived)
					select {
					case <-release:
					case <-r.Context().Done():
					}
					return http.StatusOK
				}).srv.URL
			},
		},
		{
			desc: "refusing collector",
			url: func(t *testing.T, _ <-chan struct{}, _ chan<- struct{}) string {
				return newCollector(t, func(int64, *http.Request) int { return http.StatusInternalServerError }).srv.URL
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			defer close(release)
			arrived := make(chan struct{}, 1)
			m := &countingMetrics{}
			s := newTestShipper(t, Config{
				URL: tt.url(t, release, arrived), QueueSize: 50, BatchSize: 10, FlushInterval: time.Millisecond,
				RetryBackoff: time.Millisecond,
				Client:       upstreams.Settings{Timeout: time.Hour, Retry: upstreams.RetrySettings{Attempts: 2, Backoff: time.Millisecond}},
			}, m)
			runDone := start(t, context.Background(), s)

			enqueued := make(chan struct{})
			go func() {
				for i := range 5000 {
					s.Enqueue(entry(i))
				}
				close(enqueued)
			}()
			select {
			case <-enqueued:
			case <-time.After(guard):
				t.Fatal("Enqueue blocked on the collector")
			}
			assert.Positive(t, m.droppedFor(DropQueueFull), "a stuck sender must drop, not block")
			if tt.desc == "hanging collector" {
				<-arrived // a POST is in flight and stays there
			}

			expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			err := s.Close(expired)
			require.ErrorIs(t, err, context.DeadlineExceeded, "entries were left")
			var fe *FlushError
			require.ErrorAs(t, err, &fe)
			assert.Positive(t, fe.Lost)
			assert.Equal(t, int64(fe.Lost), m.droppedFor(DropShutdown), "the loss at exit is counted")
			<-runDone
			assert.Zero(t, s.depth())
			assert.Equal(t, int64(5000), m.sent.Load()+m.dropped.Load(), "every entry is sent or counted")
		})
	}
}

func TestShipperCloseFlushesWithinDeadline(t *testing.T) {
	t.Parallel()
	c := newCollector(t, nil)
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: c.srv.URL, BatchSize: 2, FlushInterval: time.Hour}, m)
	runDone := start(t, context.Background(), s)
	s.Enqueue(entry(1))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	<-runDone
	assert.Contains(t, c.next(t).body, "call 1")
	assert.Equal(t, int64(1), m.sent.Load())
	assert.NoError(t, s.Close(ctx), "a second Close is a no-op")
}

func TestShipperRunContextEndsFirst(t *testing.T) {
	t.Parallel()
	c := newCollector(t, nil)
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: c.srv.URL, FlushInterval: time.Hour}, m)
	ctx, cancel := context.WithCancel(context.Background())
	runDone := start(t, ctx, s)
	s.Enqueue(entry(1))
	cancel()
	<-runDone
	closeCtx, closeCancel := context.WithTimeout(context.Background(), guard)
	defer closeCancel()
	require.NoError(t, s.Close(closeCtx))
	assert.Contains(t, c.next(t).body, "call 1", "Close sends what Run left")
}

// deadURL returns the URL of a port that was listening a moment ago and is
// now closed, so connections are refused.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr + "/logs"
}

// BenchmarkEnqueue measures the request path's cost while the collector is
// dead or hanging, with the memory queue and with the disk queue: it must
// stay flat, since Enqueue never waits on the collector or the disk.
func BenchmarkEnqueue(b *testing.B) {
	for _, kind := range []string{"dead", "hanging", "dead, disk queue"} {
		b.Run(kind, func(b *testing.B) {
			url := "http://127.0.0.1:1/logs"
			if kind == "hanging" {
				release := make(chan struct{})
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					select {
					case <-release:
					case <-r.Context().Done():
					}
				}))
				defer srv.Close()
				defer close(release)
				url = srv.URL
			}
			cfg := Config{URL: url, QueueSize: 1000, FlushInterval: time.Millisecond,
				Client: upstreams.Settings{Retry: upstreams.RetrySettings{Backoff: time.Millisecond}}}
			if kind == "dead, disk queue" {
				cfg.Queue, cfg.Disk = QueueDisk, DiskConfig{Dir: b.TempDir(), MaxBytes: 16 << 20}
			}
			s, err := NewShipper(cfg, nil, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			go s.Run(context.Background())
			e := entry(1)
			b.ReportAllocs()
			for b.Loop() {
				s.Enqueue(e)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			if err := s.Close(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				b.Fatal(err)
			}
		})
	}
}
