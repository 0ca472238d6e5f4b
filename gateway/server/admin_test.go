package server

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdminRoutesAreServed(t *testing.T) {
	t.Parallel()
	quotas := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"consumers":[]}`) })
	s := &Server{}
	h := s.adminMux(http.NotFoundHandler(), false)
	s.HandleAdmin("GET /admin/quotas", quotas)
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, mustRequest(t, "/admin/quotas"))
	assert.Equal(t, 200, rec.status)
	rec = &recorder{header: http.Header{}}
	req, err := http.NewRequest(http.MethodPost, "http://admin/admin/quotas", nil)
	require.NoError(t, err)
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusMethodNotAllowed, rec.status, "GET only: nothing on the admin listener changes state")
}
