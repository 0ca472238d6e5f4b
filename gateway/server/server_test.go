package server

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

func testConfig() config.Server {
	var c config.Config
	config.Defaults(&c)
	c.Server.Listen, c.Server.AdminListen = "127.0.0.1:0", "127.0.0.1:0"
	return c.Server
}

func TestDrainFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 20)
	release := make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		started <- struct{}{}
		<-release // in flight until the drain has begun
		_, _ = w.Write([]byte("done"))
	})
	s, err := Listen(testConfig(), nil, slow, http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	cancel, served := serveInBackground(s)
	const n = 10
	var ok atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.Get("http://" + s.APIAddr() + "/")
			if err != nil {
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode == 200 && string(body) == "done" {
				ok.Add(1)
			}
		})
	}
	for range n {
		<-started
	}
	ready, err := http.Get("http://" + s.AdminAddr() + "/readyz")
	require.NoError(t, err)
	ready.Body.Close()
	assert.Equal(t, 200, ready.StatusCode)
	cancel() // what SIGTERM does
	require.Eventually(t, s.draining.Load, 5*time.Second, time.Millisecond, "the drain begins")
	close(release)
	wg.Wait()
	require.NoError(t, <-served)
	assert.Equal(t, int32(n), ok.Load(), "every accepted request was answered")
	_, err = http.Get("http://" + s.APIAddr() + "/")
	assert.Error(t, err, "no longer accepting")
}

func TestReadinessFalseWhileDraining(t *testing.T) {
	t.Parallel()
	s, err := Listen(testConfig(), nil, http.NotFoundHandler(), http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	s.ready.Store(true)
	s.draining.Store(true)
	rec := &recorder{header: http.Header{}}
	s.adminMux(http.NotFoundHandler(), false).ServeHTTP(rec, mustRequest(t, "/readyz"))
	assert.Equal(t, 503, rec.status)
	rec = &recorder{header: http.Header{}}
	s.adminMux(http.NotFoundHandler(), false).ServeHTTP(rec, mustRequest(t, "/healthz"))
	assert.Equal(t, 200, rec.status)
	s.apiLn.Close()
	s.adminLn.Close()
}

func TestPortInUseIsAClearError(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	cfg := testConfig()
	cfg.Listen = ln.Addr().String()
	_, err = Listen(cfg, nil, http.NotFoundHandler(), http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "server.listen "+cfg.Listen)
	assert.Contains(t, err.Error(), "address already in use")
}

func TestAutoTLS(t *testing.T) {
	t.Parallel()
	tlsCfg, fp, err := TLSConfig(config.TLS{Mode: config.TLSAuto}, time.Now())
	require.NoError(t, err)
	assert.Len(t, fp, 64)
	assert.Equal(t, uint16(tls.VersionTLS12), tlsCfg.MinVersion)
	s, err := Listen(testConfig(), tlsCfg, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("hi"))
	}), http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.Serve(ctx, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Second)
		})
	}()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS13}}}
	resp, err := client.Get("https://" + s.APIAddr() + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "max-age=63072000; includeSubDomains", resp.Header.Get("Strict-Transport-Security"))
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11}}}
	_, err = old.Get("https://" + s.APIAddr() + "/")
	assert.Error(t, err, "TLS 1.1 is refused")
	cancel()
	require.NoError(t, <-done)
}

func TestTLSFilesMissing(t *testing.T) {
	t.Parallel()
	_, _, err := TLSConfig(config.TLS{Mode: config.TLSFiles, CertFile: "/nonexistent.crt", KeyFile: "/nonexistent.key"}, time.Now())
	assert.ErrorContains(t, err, "server.tls: loading /nonexistent.crt")
}

func TestSwappable(t *testing.T) {
	t.Parallel()
	s := NewSwappable(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201) }))
	rec := &recorder{header: http.Header{}}
	s.ServeHTTP(rec, mustRequest(t, "/"))
	assert.Equal(t, 201, rec.status)
	s.Swap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(202) }))
	rec = &recorder{header: http.Header{}}
	s.ServeHTTP(rec, mustRequest(t, "/"))
	assert.Equal(t, 202, rec.status)
}

type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { r.WriteHeader(200); return len(b), nil }
func (r *recorder) WriteHeader(s int) {
	if r.status == 0 {
		r.status = s
	}
}

func mustRequest(t *testing.T, path string) *http.Request {
	t.Helper()
	r, err := http.NewRequest("GET", "http://x"+path, nil)
	require.NoError(t, err)
	return r
}

func TestProfilesOnlyWhenEnabled(t *testing.T) {
	t.Parallel()
	for _, enabled := range []bool{false, true} {
		s := &Server{}
		h := s.adminMux(http.NotFoundHandler(), enabled)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/pprof/", nil))
		if enabled {
			assert.Equal(t, http.StatusOK, rec.Code)
			assert.Contains(t, rec.Body.String(), "goroutine")
		} else {
			assert.Equal(t, http.StatusNotFound, rec.Code)
		}
	}
}

func TestHeaderReadLimitLeavesRoomForTheEnvelope(t *testing.T) {
	t.Parallel()
	for _, max := range []int{1024, 32 << 10} {
		assert.Greater(t, headerReadLimit(max), max)
	}
}

// server.http1 picks the API listener's engine, plain or TLS (with fast,
// TLS connections that negotiate HTTP/2 go to net/http's: TestTLSEngines).
func TestHTTP1Engine(t *testing.T) {
	t.Parallel()
	tlsCfg, _, err := TLSConfig(config.TLS{Mode: config.TLSAuto}, time.Now())
	require.NoError(t, err)
	tests := []struct {
		desc   string
		engine string
		tls    *tls.Config
		std    bool
	}{
		{desc: "fast", engine: config.HTTP1Fast},
		{desc: "std", engine: config.HTTP1Std, std: true},
		{desc: "fast with TLS", engine: config.HTTP1Fast, tls: tlsCfg},
		{desc: "std with TLS", engine: config.HTTP1Std, tls: tlsCfg, std: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig()
			cfg.HTTP1 = tt.engine
			s, err := Listen(cfg, tt.tls, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, "ok")
			}), http.NotFoundHandler(), slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			_, std := s.api.(*http.Server)
			assert.Equal(t, tt.std, std)
			cancel, served := serveInBackground(s)
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
			scheme := "http://"
			if tt.tls != nil {
				scheme = "https://"
			}
			resp, err := client.Get(scheme + s.APIAddr() + "/")
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, "ok", string(body))
			client.CloseIdleConnections()
			cancel()
			require.NoError(t, <-served)
			if tt.tls != nil {
				// the caller's configuration is read, never written (the
				// subtests share it)
				//lint:ignore SA1019 ignored by crypto/tls, but net/http's Serve still writes it: the write is what this looks for
				assert.False(t, tt.tls.PreferServerCipherSuites)
			}
		})
	}
}

// serveInBackground runs s until cancel is called (what SIGTERM does);
// served then gets what Serve returned, after a drain of at most 5s.
func serveInBackground(s *Server) (cancel context.CancelFunc, served <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.Serve(ctx, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 5*time.Second)
		})
	}()
	return cancel, done
}
