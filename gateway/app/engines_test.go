package app

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/server"
)

// engines are the two positions of the HTTP engine switches (server.http1
// and every upstream's transport).
var engines = []string{config.HTTP1Fast, config.HTTP1Std}

// useEngine sets cfg's API listener and every upstream on engine.
func useEngine(cfg *config.Config, engine string) {
	cfg.Server.HTTP1 = engine
	for name, s := range cfg.Upstreams {
		s.Transport = engine
		cfg.Upstreams[name] = s
	}
}

// via is one way a request reaches a gateway handler: a recorder, or a
// real listener over loopback TCP. Its answer comes back as a recorder
// either way, for the same checks.
type via struct {
	name string
	addr string // of the listener; "" for the recorder
	// do sends body (nil for none) as it is: of known length when it is a
	// *bytes.Reader or *strings.Reader, else chunked on the wire.
	do func(method, target string, header map[string]string, body io.Reader) *httptest.ResponseRecorder
}

// recorderVia calls h directly.
func recorderVia(h http.Handler) via {
	return via{name: "recorder", do: func(method, target string, header map[string]string, body io.Reader) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, body)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}}
}

// listenerVia serves h on a real API listener of engine (gateway/server,
// plain HTTP, the shipped defaults' timeouts and limits) and sends requests
// to it over kept-alive connections.
func listenerVia(tb testing.TB, h http.Handler, engine string) via {
	tb.Helper()
	var c config.Config
	config.Defaults(&c)
	c.Server.HTTP1 = engine
	s := listenGateway(tb, c.Server, h)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	tb.Cleanup(client.CloseIdleConnections) // before the drain, which waits for idle clients otherwise
	base := "http://" + s.APIAddr()
	return via{name: engine + " listener", addr: s.APIAddr(), do: func(method, target string, header map[string]string, body io.Reader) *httptest.ResponseRecorder {
		// filled directly: its Write would set a status of its own
		rec := httptest.NewRecorder()
		req, err := http.NewRequest(method, base+target, body)
		if err != nil {
			rec.Code = 0
			_, _ = rec.Body.WriteString("request: " + err.Error())
			return rec
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			rec.Code = 0
			_, _ = rec.Body.WriteString("transport: " + err.Error())
			return rec
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			rec.Code = 0
			_, _ = rec.Body.WriteString("body: " + err.Error())
			return rec
		}
		rec.Code = resp.StatusCode
		maps.Copy(rec.Header(), resp.Header)
		_, _ = rec.Body.Write(b)
		return rec
	}}
}

// vias are the recorder and both real listeners in front of h.
func vias(tb testing.TB, h http.Handler) []via {
	tb.Helper()
	out := []via{recorderVia(h)}
	for _, e := range engines {
		out = append(out, listenerVia(tb, h, e))
	}
	return out
}

// listenGateway serves h on loopback through gateway/server with cfg
// (its listen addresses replaced by free loopback ports); the server
// drains when the test ends.
func listenGateway(tb testing.TB, cfg config.Server, h http.Handler) *server.Server {
	tb.Helper()
	return listenGatewayTLS(tb, cfg, nil, h)
}

// listenGatewayTLS is listenGateway serving TLS with tlsCfg (nil: plain).
func listenGatewayTLS(tb testing.TB, cfg config.Server, tlsCfg *tls.Config, h http.Handler) *server.Server {
	tb.Helper()
	cfg.Listen, cfg.AdminListen = "127.0.0.1:0", "127.0.0.1:0"
	s, err := server.Listen(cfg, tlsCfg, h, http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	require.NoError(tb, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.Serve(ctx, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 5*time.Second)
		})
	}()
	tb.Cleanup(func() {
		cancel()
		assert.NoError(tb, <-done)
	})
	return s
}

// sendWhileReading writes req to the listener at addr on a connection of
// its own while it reads the answer, as a client must to see an answer
// that comes before its body is sent (net/http's client may report the
// failed write instead), and returns the answer.
func sendWhileReading(tb testing.TB, addr string, req *http.Request) *httptest.ResponseRecorder {
	tb.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(tb, err)
	defer nc.Close()
	require.NoError(tb, nc.SetDeadline(time.Now().Add(30*time.Second)))
	go func() { _ = req.Write(nc) }() // ends with the connection
	resp, err := http.ReadResponse(bufio.NewReader(nc), req)
	require.NoError(tb, err)
	defer resp.Body.Close()
	rec := httptest.NewRecorder()
	rec.Code = resp.StatusCode
	maps.Copy(rec.Header(), resp.Header)
	_, err = io.Copy(rec.Body, resp.Body)
	require.NoError(tb, err)
	return rec
}
