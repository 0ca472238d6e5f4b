package server

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// tlsServer serves handler on a TLS API listener of engine until the test
// ends.
func tlsServer(t *testing.T, engine string, handler http.Handler) *Server {
	t.Helper()
	tlsCfg, _, err := TLSConfig(config.TLS{Mode: config.TLSAuto}, time.Now())
	require.NoError(t, err)
	cfg := testConfig()
	cfg.HTTP1 = engine
	s, err := Listen(cfg, tlsCfg, handler, http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	cancel, served := serveInBackground(s)
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-served)
	})
	return s
}

// whoServes answers which protocol and which server's writer served the
// request, and whether it carried its TLS state.
var whoServes = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = fmt.Fprintf(w, "%s %T tls=%t", r.Proto, w, r.TLS != nil && r.TLS.HandshakeComplete)
})

func get(t *testing.T, client *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// With the fast engine over TLS, HTTP/1.1 is h1server's and HTTP/2
// net/http's; with std both are net/http's. Every answer carries HSTS and
// every request its TLS state.
func TestTLSEngines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		engine    string
		alpn      []string
		want      string
		forceHTTP bool
	}{
		{engine: config.HTTP1Fast, alpn: []string{"http/1.1"}, want: "HTTP/1.1 *h1server.writerHandle tls=true"},
		{engine: config.HTTP1Fast, alpn: []string{"h2", "http/1.1"}, forceHTTP: true, want: "HTTP/2.0 *http.http2responseWriter tls=true"},
		{engine: config.HTTP1Std, alpn: []string{"http/1.1"}, want: "HTTP/1.1 *http.response tls=true"},
		{engine: config.HTTP1Std, alpn: []string{"h2", "http/1.1"}, forceHTTP: true, want: "HTTP/2.0 *http.http2responseWriter tls=true"},
	}
	for _, tt := range tests {
		t.Run(tt.engine+" "+strings.Join(tt.alpn, ","), func(t *testing.T) {
			t.Parallel()
			s := tlsServer(t, tt.engine, whoServes)
			tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: tt.alpn}, //nolint:gosec // the test's own certificate
				ForceAttemptHTTP2: tt.forceHTTP}
			client := &http.Client{Transport: tr}
			defer client.CloseIdleConnections()
			for range 3 { // kept-alive connections too
				resp, body := get(t, client, "https://"+s.APIAddr()+"/")
				assert.Equal(t, tt.want, body)
				assert.Equal(t, "max-age=63072000; includeSubDomains", resp.Header.Get("Strict-Transport-Security"))
			}
		})
	}
}

// A client that offers no protocol (no ALPN) is served HTTP/1.1 by
// h1server; one that speaks plain HTTP to the TLS port is told so, as
// net/http tells it.
func TestTLSWithoutALPNAndPlainHTTP(t *testing.T) {
	t.Parallel()
	s := tlsServer(t, config.HTTP1Fast, whoServes)
	conn, err := tls.Dial("tcp", s.APIAddr(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test's own certificate
	require.NoError(t, err)
	defer conn.Close()
	assert.Empty(t, conn.ConnectionState().NegotiatedProtocol)
	_, err = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: gateway\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, "HTTP/1.1 *h1server.writerHandle tls=true", string(body))

	plain, err := net.Dial("tcp", s.APIAddr())
	require.NoError(t, err)
	defer plain.Close()
	_, err = io.WriteString(plain, "GET / HTTP/1.1\r\nHost: gateway\r\n\r\n")
	require.NoError(t, err)
	answer, _ := io.ReadAll(plain)
	assert.Equal(t, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n", string(answer))
}

// A failed handshake ends its connection only: the listener serves the
// next client.
func TestTLSHandshakeFailureLeavesTheListener(t *testing.T) {
	t.Parallel()
	s := tlsServer(t, config.HTTP1Fast, whoServes)
	_, err := tls.Dial("tcp", s.APIAddr(), &tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11}) //nolint:gosec // refused on purpose
	require.Error(t, err, "TLS 1.1 is refused")
	junk, err := net.Dial("tcp", s.APIAddr())
	require.NoError(t, err)
	_, _ = junk.Write([]byte{0x16, 0x03, 0x01, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o'})
	_, _ = io.ReadAll(junk)
	junk.Close()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the test's own certificate
	defer client.CloseIdleConnections()
	_, body := get(t, client, "https://"+s.APIAddr()+"/")
	assert.Equal(t, "HTTP/1.1 *h1server.writerHandle tls=true", body)
}

// Draining lets requests in flight on both protocols finish.
func TestTLSDrainFinishesInFlightRequests(t *testing.T) {
	t.Parallel()
	for _, alpn := range [][]string{{"http/1.1"}, {"h2"}} {
		t.Run(alpn[0], func(t *testing.T) {
			t.Parallel()
			tlsCfg, _, err := TLSConfig(config.TLS{Mode: config.TLSAuto}, time.Now())
			require.NoError(t, err)
			started, release := make(chan struct{}), make(chan struct{})
			s, err := Listen(testConfig(), tlsCfg, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(started)
				<-release
				_, _ = io.WriteString(w, r.Proto)
			}), http.NotFoundHandler(), slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			cancel, served := serveInBackground(s)
			client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: alpn}, //nolint:gosec // the test's own certificate
				ForceAttemptHTTP2: alpn[0] == "h2"}}
			defer client.CloseIdleConnections()
			answered := make(chan string, 1)
			go func() {
				resp, err := client.Get("https://" + s.APIAddr() + "/")
				if err != nil {
					answered <- err.Error()
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				answered <- string(body)
			}()
			<-started
			cancel()
			require.Eventually(t, s.draining.Load, 5*time.Second, time.Millisecond)
			close(release)
			want := "HTTP/1.1"
			if alpn[0] == "h2" {
				want = "HTTP/2.0"
			}
			assert.Equal(t, want, <-answered)
			require.NoError(t, <-served)
		})
	}
}
