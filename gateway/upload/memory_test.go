package upload_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/upload"
	"github.com/restgate/gateway/gateway/upload/uploadtest"
	"github.com/restgate/gateway/upstreams/files"
)

// The whole upload path, client body to backend, must cost a bounded amount
// of memory whatever the file size: the reader spools to disk and the
// adapter streams from there.
const (
	bigUploadBytes = 200 << 20
	heapBound      = 32 << 20
)

func TestLargeUploadStaysInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MiB to disk and sends it over loopback")
	}
	var received atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		received.Store(n)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, `{"hasErrors": false, "results": [{"statusCode": 201, "result": {"id": "0D5xx0000000001"}}]}`)
	}))
	defer backend.Close()
	adapter, err := files.New(backend.URL, "v35.0", "0DB", backend.Client())
	require.NoError(t, err)

	// The client body is generated while it is read.
	body, contentType := uploadtest.Form("001xx000003DGb2", "big.bin", bigUploadBytes)
	defer body.Close()
	req := httptest.NewRequest(http.MethodPost, "/v1/files", body)
	req.Header.Set("Content-Type", contentType)
	mr, err := req.MultipartReader()
	require.NoError(t, err)

	runtime.GC()
	stop := uploadtest.HeapPeak()
	dir := t.TempDir()
	up, err := upload.Read(mr, dir, upload.Limits{MaxTotalBytes: 1 << 30})
	require.NoError(t, err)
	defer up.Close()
	require.Len(t, up.Files, 1)
	require.Equal(t, int64(bigUploadBytes), up.Files[0].Size)

	f := up.Files[0]
	results, err := adapter.Upload(context.Background(), up.SubjectID, []files.File{
		{Title: f.Title, Filename: f.Filename, Size: f.Size, Open: f.Open},
	})
	peak := stop()
	require.NoError(t, err)
	assert.Equal(t, "0D5xx0000000001", results[0].ID)
	assert.Greater(t, received.Load(), int64(bigUploadBytes), "the backend got the whole file")
	t.Logf("HeapInuse peak over a %d MiB upload: %.1f MiB", bigUploadBytes>>20, float64(peak)/(1<<20))
	assert.Less(t, peak, uint64(heapBound), "HeapInuse peak")

	require.NoError(t, up.Close())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "spool file removed")
}
