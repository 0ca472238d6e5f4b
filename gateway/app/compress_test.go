package app

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// TestCompressedAnswers: with GATEWAY_COMPRESSION=true the shipped config
// answers gzip to a client that accepts it, through both HTTP/1 engines,
// the answer decoding to the same envelope; a client that does not accept
// it gets the plain answer with its Content-Length, and both carry Vary.
func TestCompressedAnswers(t *testing.T) {
	t.Parallel()
	h := sandboxGatewayWith(t, config.HTTP1Fast, map[string]string{"GATEWAY_COMPRESSION": "true"})
	for _, engine := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			var c config.Config
			config.Defaults(&c)
			c.Server.HTTP1 = engine
			s := listenGateway(t, c.Server, h)
			for _, gz := range []bool{true, false} {
				client := &http.Client{Transport: &http.Transport{DisableCompression: !gz}}
				t.Cleanup(client.CloseIdleConnections)
				for range 2 { // the second on the kept-alive connection
					resp, err := client.Get("http://" + s.APIAddr() + "/v2/settings/endpoints")
					require.NoError(t, err)
					body, err := io.ReadAll(resp.Body)
					require.NoError(t, err)
					require.NoError(t, resp.Body.Close())
					require.Equal(t, 200, resp.StatusCode)
					assert.Equal(t, gz, resp.Uncompressed, "decoded from gzip by the client")
					assert.Contains(t, resp.Header.Values("Vary"), "Accept-Encoding")
					if !gz {
						assert.Equal(t, int64(len(body)), resp.ContentLength)
					}
					var env struct{ Result []any }
					require.NoError(t, json.Unmarshal(body, &env))
					assert.NotEmpty(t, env.Result)
				}
			}
		})
	}
}
