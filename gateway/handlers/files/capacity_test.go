package files_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Uploads past the route's cap, or larger than what is left of the spool
// budget, are refused before their body is read, with a code and a
// Retry-After; an upload of unannounced length that runs the budget out
// is refused 507.
func TestUploadCapacity(t *testing.T) {
	t.Parallel()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "never reached in this test", http.StatusTeapot)
	}))
	t.Cleanup(backend.Close)
	g := newBoundedGateway(t, backend.URL, backend.Client(), 1<<20, 1<<20, 1)

	// One upload in flight: its body arrives slowly through a pipe.
	ct, body := form(t, part{name: "subjectId", content: subject}, part{name: "file", filename: "a.bin", content: strings.Repeat("x", 1000)})
	pr, pw := io.Pipe()
	req := httptest.NewRequest(http.MethodPost, "/v2/files", pr)
	req.Header.Set("Content-Type", ct)
	req.ContentLength = int64(len(body))
	first := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		first <- rec.Code
	}()
	_, err := pw.Write(body[:len(body)/2])
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(g.spooled(t)) == 1 }, 10*time.Second, 5*time.Millisecond)

	rec := post(t, g, ct, body, int64(len(body)))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "the route's one upload is in flight")
	assert.Equal(t, "DATABASE_OPERATION_FAILED", codeOf(t, rec))
	assert.Equal(t, "5", rec.Header().Get("Retry-After"))

	pw.CloseWithError(io.ErrUnexpectedEOF) // the first client goes away
	<-first
	assert.Empty(t, g.spooled(t))

	g = newBoundedGateway(t, backend.URL, backend.Client(), 1<<20, 1<<20, 4)
	big := strings.Repeat("y", 900<<10)
	ct, body = form(t, part{name: "subjectId", content: subject}, part{name: "file", filename: "b.bin", content: big})
	pr, pw = io.Pipe()
	req = httptest.NewRequest(http.MethodPost, "/v2/files", pr)
	req.Header.Set("Content-Type", ct)
	req.ContentLength = int64(len(body))
	go func() {
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		first <- rec.Code
	}()
	_, err = pw.Write(body[:4000])
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(g.spooled(t)) == 1 }, 10*time.Second, 5*time.Millisecond)
	rec = post(t, g, ct, body, int64(len(body)))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "900 KiB announced, 900 KiB held of a 1 MiB budget")
	assert.Equal(t, "DATABASE_OPERATION_FAILED", codeOf(t, rec))
	assert.Equal(t, "5", rec.Header().Get("Retry-After"))

	ct2, small := form(t, part{name: "subjectId", content: subject}, part{name: "file", filename: "c.bin", content: strings.Repeat("z", 200<<10)})
	rec = post(t, g, ct2, small, -1)
	assert.Equal(t, http.StatusInsufficientStorage, rec.Code, "unannounced, and past the budget while spooled")
	assert.Equal(t, "DATABASE_OPERATION_FAILED", codeOf(t, rec))
	pw.CloseWithError(io.ErrUnexpectedEOF)
	<-first
	assert.Empty(t, g.spooled(t))
}

func post(t *testing.T, g *gateway, ct string, body []byte, length int64) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v2/files", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", ct)
	req.ContentLength = length
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	return rec
}

func codeOf(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	var env struct {
		ResponseCode struct {
			ID string `json:"id"`
		} `json:"responseCode"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env), rec.Body.String())
	return env.ResponseCode.ID
}
