package upload_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
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
func TestLargeUploadStaysInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MiB to disk and sends it over loopback")
	}
	backend := uploadtest.NewBackend(t)
	adapter, err := files.New(backend.URL, "v35.0", "0DB", backend.Client())
	require.NoError(t, err)

	// The client body is generated while it is read.
	body, contentType := uploadtest.Form("001xx000003DGb2", "big.bin", uploadtest.BigUploadBytes)
	defer body.Close()
	req := httptest.NewRequest(http.MethodPost, "/v1/files", body)
	req.Header.Set("Content-Type", contentType)
	mr, err := req.MultipartReader()
	require.NoError(t, err)

	dir := t.TempDir()
	uploadtest.CheckBounded(t, backend, "read and sent by the adapter", func() {
		up, err := upload.Read(mr, dir, upload.Limits{MaxTotalBytes: 1 << 30})
		require.NoError(t, err)
		defer up.Close()
		require.Len(t, up.Files, 1)
		require.Equal(t, int64(uploadtest.BigUploadBytes), up.Files[0].Size)
		f := up.Files[0]
		results, err := adapter.Upload(context.Background(), up.SubjectID, []files.File{
			{Title: f.Title, Filename: f.Filename, Size: f.Size, Open: f.Open},
		})
		require.NoError(t, err)
		assert.Equal(t, uploadtest.CreatedID, results[0].ID)
		require.NoError(t, up.Close())
	})
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "spool file removed")
}
