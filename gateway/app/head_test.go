package app

import (
	"crypto/tls"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/server"
)

// TestHeadAndOptions: HEAD answers every GET route with the GET's status
// and headers and no body, through both HTTP engines and through TLS,
// with the next request on the same connection answered correctly (a
// body sent after a HEAD wireAnswer would be read as the next wireAnswer);
// OPTIONS answers 204 with the Allow list.
func TestHeadAndOptions(t *testing.T) {
	t.Parallel()
	h := sandboxGatewayWith(t, config.HTTP1Fast, nil)
	type listener struct {
		name   string
		base   string
		client *http.Client
	}
	var listeners []listener
	for _, engine := range engines {
		var c config.Config
		config.Defaults(&c)
		c.Server.HTTP1 = engine
		s := listenGateway(t, c.Server, h)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
		t.Cleanup(client.CloseIdleConnections)
		listeners = append(listeners, listener{engine, "http://" + s.APIAddr(), client})
	}
	var c config.Config
	config.Defaults(&c)
	tlsCfg, _, err := server.TLSConfig(config.TLS{Mode: config.TLSAuto}, time.Now())
	require.NoError(t, err)
	s := listenGatewayTLS(t, c.Server, tlsCfg, h)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, ForceAttemptHTTP2: true, DisableCompression: true,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // the gateway's self-signed test certificate
	t.Cleanup(client.CloseIdleConnections)
	listeners = append(listeners, listener{"tls", "https://" + s.APIAddr(), client})

	paths := []string{"/v2/accounts", "/v2/accounts?limit=1", "/v1/settings/endpoints", "/v2/settings/openapi",
		"/v2/tasks?size=2", "/v2/nothing", "/v2/accounts?colour=red"}
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			for _, p := range paths {
				get := send(t, l.client, "GET", l.base+p)
				head := send(t, l.client, "HEAD", l.base+p)
				assert.Equal(t, get.status, head.status, p)
				assert.Empty(t, head.body, "%s: HEAD has no body", p)
				// the length a GET would have: totalTime's digits may differ
				n, err := strconv.Atoi(head.header.Get("Content-Length"))
				require.NoError(t, err, p)
				assert.InDelta(t, len(get.body), n, 16, p)
				assert.Equal(t, get.header.Get("Content-Type"), head.header.Get("Content-Type"), p)
				assert.NotEmpty(t, head.header.Get("Server-Timing"), p)
			}
			opt := send(t, l.client, "OPTIONS", l.base+"/v2/accounts")
			assert.Equal(t, 204, opt.status)
			assert.Equal(t, "DELETE, GET, HEAD, OPTIONS, POST, PUT", opt.header.Get("Allow"))
			assert.Empty(t, opt.body)
			post := send(t, l.client, "OPTIONS", l.base+"/v2/messages")
			assert.Equal(t, "OPTIONS, POST", post.header.Get("Allow"))
			assert.Equal(t, 405, send(t, l.client, "HEAD", l.base+"/v2/messages").status, "no HEAD without a GET")
		})
	}
}

type wireAnswer struct {
	status int
	header http.Header
	body   []byte
}

func send(t *testing.T, c *http.Client, method, url string) wireAnswer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return wireAnswer{resp.StatusCode, resp.Header, b}
}
