package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The collector counts the lines of every batch, however the body arrives,
// and reports the total.
func TestCollectorCountsLines(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(collectorHandler())
	t.Cleanup(srv.Close)
	long := strings.Repeat(`{"call":"x"}`+"\n", 10000) // past one read buffer
	for _, batch := range []string{"", "{}\n", "{}\n{}\n{}\n", long} {
		resp, err := http.Post(srv.URL+"/log", "application/x-ndjson", strings.NewReader(batch))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
	resp, err := http.Get(srv.URL + "/count")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "10004\n", string(b))
}
