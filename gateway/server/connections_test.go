package server

import (
	"bufio"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

func TestConnectionCap(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 10000, connectionCap(10000, 64, 1<<20), "room enough")
	assert.Equal(t, 10000, connectionCap(10000, 64, 0), "limit unknown")
	assert.Equal(t, 32, connectionCap(10000, 64, 256), "(256-64-128)/2")
	assert.Equal(t, 1, connectionCap(10000, 64, 100), "never below one")
	assert.Equal(t, 5, connectionCap(5, 64, 256))
}

// Every engine of the API listener accepts at most maxConnections at once:
// the next connection waits, unanswered, until one closes, while the admin
// listener keeps answering.
func TestAPIListenerCapsConnections(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		desc, tls, http1 string
	}{
		{desc: "plain HTTP, fast engine", tls: config.TLSOff, http1: config.HTTP1Fast},
		{desc: "plain HTTP, std engine", tls: config.TLSOff, http1: config.HTTP1Std},
		{desc: "TLS", tls: config.TLSAuto, http1: config.HTTP1Fast},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.TLS.Mode, cfg.HTTP1 = tt.tls, tt.http1
			cfg.Limits.MaxConnections = 3
			var tlsCfg *tls.Config
			if tt.tls != config.TLSOff {
				var err error
				tlsCfg, _, err = TLSConfig(cfg.TLS, time.Now())
				require.NoError(t, err)
			}
			ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
			s, err := Listen(cfg, tlsCfg, ok, http.NotFoundHandler(), slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			cancel, served := serveInBackground(s)
			t.Cleanup(func() {
				cancel()
				<-served
			})
			dial := func() (net.Conn, error) {
				if tlsCfg != nil {
					return tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", s.APIAddr(),
						&tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}) //nolint:gosec // the test's own certificate
				}
				return net.DialTimeout("tcp", s.APIAddr(), 10*time.Second)
			}
			// get sends one request on a new connection and reports its status.
			get := func(conns chan<- net.Conn) (int, error) {
				c, err := dial()
				if err != nil {
					return 0, err
				}
				conns <- c
				if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: gw\r\n\r\n")); err != nil {
					return 0, err
				}
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					return 0, err
				}
				resp.Body.Close()
				return resp.StatusCode, nil
			}
			conns := make(chan net.Conn, 8)
			t.Cleanup(func() {
				close(conns)
				for c := range conns {
					c.Close()
				}
			})
			var open []net.Conn
			for range 3 {
				status, err := get(conns)
				require.NoError(t, err)
				require.Equal(t, 200, status)
				open = append(open, <-conns)
			}

			fourth := make(chan error, 1)
			waiting := make(chan net.Conn, 1)
			go func() {
				status, err := get(waiting)
				if err == nil && status != 200 {
					err = assert.AnError
				}
				fourth <- err
			}()
			select {
			case err := <-fourth:
				t.Fatalf("a connection past the cap was served: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + s.AdminAddr() + "/readyz")
			require.NoError(t, err, "the admin listener answers while the API is at its cap")
			resp.Body.Close()
			assert.Equal(t, 200, resp.StatusCode)

			require.NoError(t, open[0].Close())
			select {
			case err := <-fourth:
				assert.NoError(t, err, "served once a connection closed")
			case <-time.After(20 * time.Second):
				t.Fatal("the waiting connection was never served")
			}
			if c := <-waiting; c != nil {
				conns <- c
			}
			for _, c := range open[1:] {
				conns <- c
			}
		})
	}
}
