package files_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/restgate/gateway/gateway/upload/uploadtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole route, client body to backend, must cost bounded memory
// whatever the upload's size.
func TestLargeUploadThroughTheRouterStaysInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("spools 200 MiB to disk and sends it twice over loopback")
	}
	backend := uploadtest.NewBackend(t)
	g := newGateway(t, backend.URL, backend.Client(), 1<<30)
	front := httptest.NewServer(g)
	defer front.Close()

	// The client's body is generated while the gateway reads it.
	body, contentType := uploadtest.Form(subject, "big.bin", uploadtest.BigUploadBytes)
	uploadtest.CheckBounded(t, backend, "through the router", func() {
		req, err := http.NewRequest(http.MethodPost, front.URL+"/v1/files", body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", contentType)
		resp, err := front.Client().Do(req)
		require.NoError(t, err)
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", answer)
		assert.Contains(t, string(answer), `"id":"`+uploadtest.CreatedID+`"`)
	})
	assert.Empty(t, g.spooled(t), "spool file removed")
}
