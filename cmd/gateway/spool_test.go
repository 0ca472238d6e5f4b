//go:build unix

package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const uploadConfig = `
server:
  listen: %s
  adminListen: %s
  tls: {mode: off}
  timeouts: {shutdown: 5s}
  dataDir: %s
versions: [v1, v2]
upstreams:
  files: {url: "http://127.0.0.1:9", options: {apiVersion: v35.0, communityId: 0DB000000000001}}
routes:
  - {path: "/{version}/files", kind: files, upstream: files, methods: [POST], maxBodyBytes: 104857600, bodyTimeout: 1m}
`

// startGateway runs a gateway of the upload config on dataDir.
func startGateway(t *testing.T, dataDir string) *gatewayProcess {
	t.Helper()
	return startProcess(t, t.TempDir(), func(api, admin string) string {
		return fmt.Sprintf(uploadConfig, api, admin, dataDir)
	})
}

// startUpload sends the head of a large upload and the first megabyte of
// its file, and leaves the connection open: an upload in progress.
func startUpload(t *testing.T, api string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", api, 10*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	const boundary = "b0undary"
	head := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"subjectId\"\r\n\r\n005000000000001AAA\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n" +
		"Content-Type: application/octet-stream\r\n\r\n"
	_, err = fmt.Fprintf(c, "POST /v2/files HTTP/1.1\r\nHost: gw\r\nContent-Type: multipart/form-data; boundary=%s\r\n"+
		"Content-Length: %d\r\n\r\n%s", boundary, 50<<20, head)
	require.NoError(t, err)
	_, err = c.Write(make([]byte, 1<<20))
	require.NoError(t, err)
	return c
}

// spooled lists the files under the data directory's spool, lock files
// aside.
func spooled(t *testing.T, dataDir string) []string {
	t.Helper()
	var files []string
	root := filepath.Join(dataDir, "spool")
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".lock") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return nil
	})
	return files
}

// A gateway killed mid-upload leaves its spooled file behind; the next one
// to start on the data directory removes it, while a gateway that is alive
// on the same directory never loses its own.
func TestCrashedUploadsAreSweptAtTheNextStart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dataDir := t.TempDir()
	a := startGateway(t, dataDir)
	startUpload(t, a.api)
	require.Eventually(t, func() bool { return len(spooled(t, dataDir)) == 1 }, 20*time.Second, 10*time.Millisecond,
		"the upload is being spooled")
	orphan := spooled(t, dataDir)[0]
	assert.True(t, strings.HasPrefix(orphan, fmt.Sprintf("p%d-", a.cmd.Process.Pid)), "in its process's directory: %s", orphan)

	b := startGateway(t, dataDir)
	assert.Equal(t, []string{orphan}, spooled(t, dataDir), "a second gateway on the data directory leaves a live upload alone")

	require.NoError(t, a.cmd.Process.Signal(syscall.SIGKILL))
	_ = a.cmd.Wait()
	assert.Equal(t, []string{orphan}, spooled(t, dataDir), "a crash leaves the spooled file")

	require.NoError(t, b.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, b.cmd.Wait(), "b stops cleanly; output:\n%s", b.out.String())
	assert.Equal(t, []string{orphan}, spooled(t, dataDir), "a clean stop removes only its own directory")

	c := startGateway(t, dataDir)
	assert.Empty(t, spooled(t, dataDir), "the next start swept the crashed gateway's file")
	assert.NoDirExists(t, filepath.Join(dataDir, "spool", filepath.Dir(orphan)))
	assert.Contains(t, c.out.String(), `"msg":"upload spool swept of what stopped gateways left","dirs":1,"files":1`)
}
