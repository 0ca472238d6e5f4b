package h1client

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deadlineCounter is a net.Conn that counts its deadline calls.
type deadlineCounter struct {
	net.Conn
	both, read, write *atomic.Int32
}

// SyscallConn passes the connection's own: without it the transport could
// not check an idle connection and would not reuse it.
func (d deadlineCounter) SyscallConn() (syscall.RawConn, error) {
	return d.Conn.(syscall.Conn).SyscallConn()
}

func (d deadlineCounter) SetDeadline(t time.Time) error {
	d.both.Add(1)
	return d.Conn.SetDeadline(t)
}

func (d deadlineCounter) SetReadDeadline(t time.Time) error {
	d.read.Add(1)
	return d.Conn.SetReadDeadline(t)
}

func (d deadlineCounter) SetWriteDeadline(t time.Time) error {
	d.write.Add(1)
	return d.Conn.SetWriteDeadline(t)
}

func TestDeadlineCalls(t *testing.T) {
	t.Parallel()
	far := time.Now().Add(time.Hour)
	tests := []struct {
		desc          string
		deadline      time.Time // of the context; zero for none
		headerTimeout time.Duration
		// calls over two exchanges on one connection
		both, read, write int32
	}{
		{desc: "no deadline at all sets none", both: 0, read: 0, write: 0},
		{desc: "context deadline alone is one call, kept for the next exchange", deadline: far, both: 1},
		{desc: "header timeout alone bounds the head, kept for a body already read and the next exchange",
			headerTimeout: time.Minute, read: 1},
		{desc: "header timeout before the context deadline", deadline: far, headerTimeout: time.Minute, read: 1, write: 1},
		{desc: "context deadline before the header timeout is one call", deadline: far, headerTimeout: 2 * time.Hour, both: 1},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv, conns := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
			var both, read, write atomic.Int32
			dialer := &net.Dialer{}
			tr, _ := newTransport(t, Options{
				ResponseHeaderTimeout: tt.headerTimeout,
				Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
					nc, err := dialer.DialContext(ctx, network, addr)
					return deadlineCounter{Conn: nc, both: &both, read: &read, write: &write}, err
				},
			})
			ctx := context.Background()
			if !tt.deadline.IsZero() {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, tt.deadline)
				defer cancel()
			}
			for range 2 {
				status, body := get(t, tr, ctx, http.MethodGet, srv.URL, nil)
				assert.Equal(t, 200, status)
				assert.Equal(t, "ok", body)
			}
			assert.Equal(t, int32(1), conns.Load())
			assert.Equal(t, tt.both, both.Load(), "SetDeadline")
			assert.Equal(t, tt.read, read.Load(), "SetReadDeadline")
			assert.Equal(t, tt.write, write.Load(), "SetWriteDeadline")
		})
	}
}

// TestContextEndsBodyRead cancels a request whose head came back and whose
// body never ends: the body's Read returns, and the connection is closed.
func TestContextEndsBodyRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc          string
		headerTimeout time.Duration
	}{
		{desc: "read deadline kept from the head"},
		{desc: "read deadline set again for the body", headerTimeout: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "10")
				_, _ = io.WriteString(w, "part")
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			t.Cleanup(func() { close(release) })
			tr, _ := newTransport(t, Options{ResponseHeaderTimeout: tt.headerTimeout})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			require.NoError(t, err)
			resp, err := tr.RoundTrip(req)
			require.NoError(t, err)
			buf := make([]byte, 4)
			_, err = io.ReadFull(resp.Body, buf)
			require.NoError(t, err)
			time.AfterFunc(20*time.Millisecond, cancel)
			_, err = io.ReadAll(resp.Body)
			require.ErrorIs(t, err, context.Canceled)
			assert.Zero(t, idleCount(tr, srv.URL))
		})
	}
}
