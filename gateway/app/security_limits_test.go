package app

import (
	"bufio"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// limitsGateway builds the shipped config in mode none (loopback) with
// every upstream at backend; extra adds environment variables.
func limitsGateway(t *testing.T, backend string, extra map[string]string) (*builtGateway, *config.Config) {
	t.Helper()
	env := shippedEnv(t, backend, extra)
	cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
	require.NoError(t, err)
	require.NoError(t, config.Validate(cfg))
	return buildFrom(t, cfg, nil, nil), cfg
}

// chunked hides a body's length so only reading it finds it too large.
type chunked struct{ io.Reader }

func TestLimitsAnswerEnveloped413(t *testing.T) {
	t.Parallel()
	backend := newCountingBackend(t)
	gw, cfg := limitsGateway(t, backend.srv.URL, nil)
	limits := cfg.Server.Limits
	big := `{"Name":"` + strings.Repeat("a", int(limits.MaxBodyBytes)) + `"}`
	tests := []struct {
		desc, method, target string
		header               map[string]string
		body                 io.Reader
		length               int64 // -1: unknown (chunked)
	}{
		{desc: "URL over maxURLLength", method: "GET", target: "/v2/accounts?q=" + strings.Repeat("x", limits.MaxURLLength)},
		{desc: "one header over maxHeaderBytes", method: "GET", target: "/v2/accounts",
			header: map[string]string{"X-Padding": strings.Repeat("h", limits.MaxHeaderBytes)}},
		{desc: "many headers over maxHeaderBytes", method: "GET", target: "/v2/accounts",
			header: manyHeaders(limits.MaxHeaderBytes/100+1, 100)},
		{desc: "declared body over maxBodyBytes", method: "POST", target: "/v2/accounts",
			body: strings.NewReader(big), length: int64(len(big))},
		{desc: "chunked body over maxBodyBytes", method: "POST", target: "/v2/accounts",
			body: chunked{strings.NewReader(big)}, length: -1},
		{desc: "chunked body over maxBodyBytes on PUT", method: "PUT", target: "/v1/accounts/001000000000001AAA",
			body: chunked{strings.NewReader(big)}, length: -1},
		{desc: "files body declared over the route's own limit", method: "POST", target: "/v2/files",
			body: strings.NewReader("--x--"), length: 2 << 30},
	}
	ways := vias(t, gw.handler)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(tt.method, tt.target, tt.body)
			if tt.body != nil {
				req.ContentLength = tt.length
				req.Header.Set("Content-Type", "application/json")
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			gw.handler.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
			assert.Equal(t, "REQUEST_TOO_LARGE", responseID(envelopeOf(t, rec)))
			if tt.length > int64(len(big)) {
				return // a length no client sends a body for: the recorder only
			}
			// the same on the wire, through both listeners
			for _, way := range ways[1:] {
				var body io.Reader
				header := maps.Clone(tt.header)
				switch b := tt.body.(type) {
				case *strings.Reader:
					body = strings.NewReader(big)
				case chunked:
					body = chunked{strings.NewReader(big)}
				case nil:
				default:
					t.Fatalf("body %T", b)
				}
				req, err := http.NewRequest(tt.method, "http://"+way.addr+tt.target, body)
				require.NoError(t, err)
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				for k, v := range header {
					req.Header.Set(k, v)
				}
				rec := sendWhileReading(t, way.addr, req)
				assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, way.name+": "+rec.Body.String())
				assert.Equal(t, "REQUEST_TOO_LARGE", responseID(envelopeOf(t, rec)), way.name)
			}
		})
	}
	t.Cleanup(func() { assert.Zero(t, backend.hits.Load(), "nothing too large reached a backend") })
}

func manyHeaders(n, size int) map[string]string {
	h := make(map[string]string, n)
	for i := range n {
		h["X-Pad-"+strings.Repeat("p", i%7)+string(rune('a'+i%26))+strings.Repeat("q", i/26)] = strings.Repeat("v", size)
	}
	return h
}

func TestLimitsLetThroughWhatFits(t *testing.T) {
	t.Parallel()
	backend := newCountingBackend(t)
	gw, cfg := limitsGateway(t, backend.srv.URL, nil)
	limits := cfg.Server.Limits

	rec := serve(gw.handler, "GET", "/v2/settings/endpoints", map[string]string{"X-Padding": strings.Repeat("h", limits.MaxHeaderBytes/2)}, "")
	assert.Equal(t, http.StatusOK, rec.Code, "headers under the limit: %s", rec.Body.String())

	// the files route has its own, larger limit: a form over the default
	// body limit is not refused for its size
	req := httptest.NewRequest("POST", "/v2/files", strings.NewReader("--x--"))
	req.ContentLength = limits.MaxBodyBytes + 1
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	rec = httptest.NewRecorder()
	gw.handler.ServeHTTP(rec, req)
	assert.NotEqual(t, http.StatusRequestEntityTooLarge, rec.Code, rec.Body.String())
}

func TestJSONNestingDepth(t *testing.T) {
	t.Parallel()
	backend := newCountingBackend(t)
	gw, _ := limitsGateway(t, backend.srv.URL, nil)
	deep := strings.Repeat(`{"Name":`, 100) + `"x"` + strings.Repeat("}", 100)
	deepArray := `{"Name":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`
	for _, target := range []string{"/v2/accounts", "/v2/process-instances", "/v2/messages"} {
		for _, body := range []string{deep, deepArray} {
			rec := serve(gw.handler, "POST", target, nil, body)
			assert.Equal(t, http.StatusBadRequest, rec.Code, target+": "+rec.Body.String())
			assert.Equal(t, "JSON_SERIALIZATION_FAILED", responseID(envelopeOf(t, rec)), target)
		}
	}
	rec := serve(gw.handler, "PUT", "/v2/accounts", nil, "["+deep+"]")
	assert.Equal(t, "JSON_SERIALIZATION_FAILED", responseID(envelopeOf(t, rec)), "bulk update")
	rec = serve(gw.handler, "GET", "/v2/settings/model/Account", nil, deep)
	assert.Equal(t, http.StatusBadRequest, rec.Code, "a record mapped by the model route")
	assert.Equal(t, "JSON_SERIALIZATION_FAILED", responseID(envelopeOf(t, rec)), "model")
	assert.Zero(t, backend.hits.Load(), "a too deep body never reaches a backend")
}

func TestRateLimitPerVerifiedUser(t *testing.T) {
	t.Parallel()
	backend := newCountingBackend(t)
	gw, _ := limitsGateway(t, backend.srv.URL, map[string]string{"GATEWAY_RATE_LIMIT_RPS": "0.5", "GATEWAY_RATE_LIMIT_BURST": "2"})
	for range 2 {
		rec := serve(gw.handler, "GET", "/v2/settings/endpoints", nil, "")
		require.Equal(t, http.StatusOK, rec.Code)
	}
	// a forged identity header does not buy a fresh bucket
	rec := serve(gw.handler, "GET", "/v2/accounts", map[string]string{"X-User-Id": "someone-else"}, "")
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "RATE_LIMITED", responseID(envelopeOf(t, rec)))
	assert.Equal(t, "2", rec.Header().Get("Retry-After"))
	assert.Zero(t, backend.hits.Load(), "a limited call never reaches a backend")
}

func TestHeaderLimitsOnTheWire(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testHeaderLimitsOnTheWire(t, engine)
		})
	}
}

func testHeaderLimitsOnTheWire(t *testing.T, engine string) {
	backend := newCountingBackend(t)
	gw, cfg := limitsGateway(t, backend.srv.URL, nil)
	cfg.Server.HTTP1 = engine
	s := listenGateway(t, cfg.Server, gw.handler)
	// its own client, whose idle connections close before the drain: Go's
	// transport may keep a spare connection that never sent a request, and
	// a drain waits 5 seconds for such a connection's first request
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	max := cfg.Server.Limits.MaxHeaderBytes
	tests := []struct {
		desc     string
		padding  int
		status   int
		envelope bool
	}{
		{desc: "under the limit", padding: max / 2, status: 200, envelope: true},
		{desc: "over the limit: enveloped", padding: max + 100, status: 413, envelope: true},
		{desc: "absurd: the server's plain answer", padding: 4 * max, status: 431},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest("GET", "http://"+s.APIAddr()+"/v2/settings/endpoints", nil)
			require.NoError(t, err)
			req.Header.Set("X-Padding", strings.Repeat("h", tt.padding))
			resp, err := client.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.status, resp.StatusCode)
			if tt.envelope {
				rec := httptest.NewRecorder()
				rec.Code = resp.StatusCode
				_, _ = rec.Body.Write(body)
				env := envelopeOf(t, rec)
				if tt.status == 413 {
					assert.Equal(t, "REQUEST_TOO_LARGE", responseID(env))
				}
			}
		})
	}
}

func TestSlowHeadersAreCutOff(t *testing.T) {
	t.Parallel()
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			testSlowHeadersAreCutOff(t, engine)
		})
	}
}

func testSlowHeadersAreCutOff(t *testing.T, engine string) {
	var served atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { served.Add(1) })
	var c config.Config
	config.Defaults(&c)
	c.Server.HTTP1 = engine
	c.Server.Timeouts.ReadHeader = 200 * time.Millisecond
	s := listenGateway(t, c.Server, h)

	conn, err := net.Dial("tcp", s.APIAddr())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET /v2/settings/endpoints HTTP/1.1\r\nHost: gw\r\n"))
	require.NoError(t, err)
	// the rest of the headers trickles in, one byte at a time, too slowly
	cut := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			time.Sleep(50 * time.Millisecond)
			if _, err := conn.Write([]byte{"X-Slow: 1\r\n"[i%11]}); err != nil {
				cut <- err
				return
			}
			if i > 200 {
				cut <- nil
				return
			}
		}
	}()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	// the server gives up on the request: at most a plain 400 with
	// Connection: close, then the connection ends (EOF or reset), long before
	// the client's own deadline
	answer, err := io.ReadAll(bufio.NewReader(conn))
	assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, "the server, not the client, ended the connection")
	if len(answer) > 0 {
		assert.True(t, strings.HasPrefix(string(answer), "HTTP/1.1 400 "), "%q", answer)
		assert.Contains(t, string(answer), "Connection: close")
	}
	assert.Zero(t, served.Load(), "the handler never saw the slow request")
}
