package files_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/restgate/gateway/gateway/upload/uploadtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The whole route, client body to backend, must cost bounded memory
// whatever the upload's size.
const (
	bigUploadBytes = 200 << 20
	heapBound      = 32 << 20
)

func TestLargeUploadThroughTheRouterStaysInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("spools 200 MiB to disk and sends it twice over loopback")
	}
	var received atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		received.Store(n)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, `{"hasErrors":false,"results":[{"statusCode":201,"result":{"id":"0D5xx0000000001"}}]}`)
	}))
	defer backend.Close()
	g := newGateway(t, backend.URL, backend.Client(), 1<<30)
	front := httptest.NewServer(g)
	defer front.Close()

	// The client's body is generated while the gateway reads it.
	body, contentType := uploadtest.Form(subject, "big.bin", bigUploadBytes)

	runtime.GC()
	stop := uploadtest.HeapPeak()
	req, err := http.NewRequest(http.MethodPost, front.URL+"/v1/files", body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	resp, err := front.Client().Do(req)
	require.NoError(t, err)
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	peak := stop()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", answer)
	assert.Contains(t, string(answer), `"id":"0D5xx0000000001"`)
	assert.Greater(t, received.Load(), int64(bigUploadBytes), "the backend got the whole file")
	t.Logf("HeapInuse peak over a %d MiB upload through the router: %.1f MiB", bigUploadBytes>>20, float64(peak)/(1<<20))
	assert.Less(t, peak, uint64(heapBound), "HeapInuse peak")
	assert.Empty(t, g.spooled(t), "spool file removed")
}
