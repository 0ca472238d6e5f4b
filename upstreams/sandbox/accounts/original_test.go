package accounts

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
)

// TestOriginal walks the original controller's routes: names without ids,
// paging ignored, the unquoted id and status texts, a replacing update.
func TestOriginal(t *testing.T) {
	t.Parallel()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := NewOriginal(db)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	url := srv.URL + basePath

	status, raw := send(t, http.MethodGet, url+"?limit=2&offset=5", "", "")
	require.Equal(t, http.StatusOK, status)
	var list []map[string]any
	require.NoError(t, json.Unmarshal(raw, &list))
	assert.Len(t, list, 36, "paging is ignored")
	assert.Equal(t, map[string]any{"Name": "Burlington Textiles Corp of America"}, list[0], "a name and nothing else")

	status, raw = send(t, http.MethodPost, url, "application/json", `{"Name":"Original Ltd","BillingCity":"Oslo"}`)
	require.Equal(t, http.StatusOK, status)
	m := regexp.MustCompile(`^\{id:(001[0-9A-Za-z]{15})\}$`).FindStringSubmatch(string(raw))
	require.NotNil(t, m, "the unquoted id text: %s", raw)
	id := m[1]
	assert.False(t, json.Valid(raw))

	status, raw = send(t, http.MethodPost, url+"?Name=By+Query", "", "")
	require.Equal(t, http.StatusOK, status, string(raw))
	assert.Regexp(t, `^\{id:001`, string(raw))

	status, raw = send(t, http.MethodGet, url+id, "", "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `[{"Name":"Original Ltd"}]`, string(raw))
	var city any
	require.NoError(t, db.QueryRow(`SELECT "BillingCity" FROM accounts WHERE "Id" = ?`, id).Scan(&city))
	assert.Nil(t, city, "the model has only Name: the rest of the body was ignored")

	require.NoError(t, func() error {
		_, err := db.Exec(`UPDATE accounts SET "Phone" = '555' WHERE "Id" = ?`, id)
		return err
	}())
	status, raw = send(t, http.MethodPost, url+id, "application/json", `{"Rating":"Hot"}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "{status: success}", string(raw))
	status, raw = send(t, http.MethodGet, url+id, "", "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `[{"Name":null}]`, string(raw), "the update replaced the account")
	var phone any
	require.NoError(t, db.QueryRow(`SELECT "Phone" FROM accounts WHERE "Id" = ?`, id).Scan(&phone))
	assert.Nil(t, phone)

	status, raw = send(t, http.MethodDelete, url+id, "", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "{status: success}", string(raw))
	for _, method := range []string{http.MethodDelete, http.MethodPost} {
		status, raw = send(t, method, url+id, "application/json", `{"Name":"x"}`)
		assert.Equal(t, http.StatusOK, status)
		assert.Equal(t, "{status : failure}", string(raw), method)
	}
	status, _ = send(t, http.MethodGet, url+id, "", "")
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = send(t, http.MethodGet, url+"nope", "", "")
	assert.Equal(t, http.StatusBadRequest, status)
}
