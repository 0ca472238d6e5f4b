package files_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/upstreams"
	sandboxfiles "github.com/restgate/gateway/upstreams/sandbox/files"
)

// sandboxGateway serves the files route against the reference batch upload,
// through the shared upstream client that adds the bearer token.
func sandboxGateway(t *testing.T) (*gateway, string, func(id string) (title, storedPath string)) {
	t.Helper()
	store := filepath.Join(t.TempDir(), "files")
	var db *sql.DB
	url, _ := handlertest.Sandbox(t, t.TempDir(), func(d *sql.DB) (http.Handler, error) {
		db = d
		return sandboxfiles.New(d, store)
	})
	client, err := upstreams.NewClient("files", upstreams.Settings{URL: url, Retry: upstreams.RetrySettings{Attempts: 1},
		Auth: upstreams.AuthSettings{BearerToken: "sandbox-token"}}, nil)
	require.NoError(t, err)
	t.Cleanup(client.Close)
	lookup := func(id string) (string, string) {
		var title, path string
		require.NoError(t, db.QueryRow(`SELECT title, stored_path FROM files_items WHERE id = ? AND subject_id = ?`, id, subject).
			Scan(&title, &path))
		return title, path
	}
	return newGateway(t, url, client, 1<<30), store, lookup
}

func TestSandboxUpload(t *testing.T) {
	t.Parallel()
	g, _, lookup := sandboxGateway(t)
	contents := map[string]string{"a.txt": "first file", "b.bin": string([]byte{0, 1, 2, 255})}
	ct, body := form(t,
		part{name: "file", filename: "a.txt", content: contents["a.txt"]},
		part{name: "subjectId", content: subject},
		part{name: "file", filename: "b.bin", content: contents["b.bin"]},
		part{name: "title", content: "Title A"},
	)
	a := send(t, g, ct, bytes.NewReader(body))
	require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	var results []struct {
		Title      string `json:"title"`
		StatusCode int    `json:"statusCode"`
		ID         string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &results))
	require.Len(t, results, 2)
	for i, want := range []struct{ title, filename string }{{"Title A", "a.txt"}, {"b.bin", "b.bin"}} {
		r := results[i]
		assert.Equal(t, want.title, r.Title)
		assert.Equal(t, http.StatusCreated, r.StatusCode)
		require.NotEmpty(t, r.ID)
		title, stored := lookup(r.ID)
		assert.Equal(t, want.title, title)
		got, err := os.ReadFile(stored)
		require.NoError(t, err)
		assert.Equal(t, contents[want.filename], string(got))
	}
	assert.Empty(t, g.spooled(t))
}

func TestSandboxRequiresToken(t *testing.T) {
	t.Parallel()
	store := t.TempDir()
	url, _ := handlertest.Sandbox(t, t.TempDir(), func(db *sql.DB) (http.Handler, error) { return sandboxfiles.New(db, store) })
	g := newGateway(t, url, handlertest.Client(t), 1<<20) // no credentials added
	ct, body := form(t, part{name: "subjectId", content: subject}, part{name: "file", filename: "a.txt", content: "a"})
	a := send(t, g, ct, bytes.NewReader(body))
	assert.Equal(t, http.StatusUnauthorized, a.Status)
	assert.Equal(t, "SOBJECT_OPERATION_FAILED", a.ResponseCode.ID)
	assert.Contains(t, a.ResponseCode.FormattedSystemMessage, "Session expired or invalid")
}
