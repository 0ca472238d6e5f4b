package accounts

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
)

// TestAgainstSandbox runs the client over HTTP against the reference
// account controller, the same path the gateway takes in its demo setup.
func TestAgainstSandbox(t *testing.T) {
	t.Parallel()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	defer db.Close()
	h, err := sandboxaccounts.New(db)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := New(srv.URL, srv.Client())
	ctx := t.Context()

	all, err := c.List(ctx, nil)
	require.NoError(t, err)
	ids, err := recordIDs(all.JSON)
	require.NoError(t, err)
	require.Len(t, ids, 36)

	page, err := c.List(ctx, &Page{Limit: 5, Offset: 3})
	require.NoError(t, err)
	pageIDs, err := recordIDs(page.JSON)
	require.NoError(t, err)
	assert.Equal(t, ids[3:8], pageIDs, "the sandbox pages in SQL")

	id, err := c.Create(ctx, []byte(`{"Name":"Adapter Test Co","BillingCity":"Lisbon","NumberOfEmployees":12}`))
	require.NoError(t, err)
	assert.True(t, ValidID(id), id)

	rec, err := c.Get(ctx, id)
	require.NoError(t, err)
	assert.JSONEq(t, `"Adapter Test Co"`, field(t, rec.JSON, "Name"))
	assert.JSONEq(t, `12`, field(t, rec.JSON, "NumberOfEmployees"))

	require.NoError(t, c.Update(ctx, id, []byte(`{"BillingCity":"Porto"}`)))
	rec, err = c.Get(ctx, id[:15])
	require.NoError(t, err)
	assert.JSONEq(t, `"Porto"`, field(t, rec.JSON, "BillingCity"))
	assert.JSONEq(t, `"Adapter Test Co"`, field(t, rec.JSON, "Name"), "partial update keeps the other fields")

	require.NoError(t, c.Delete(ctx, id))
	_, err = c.Get(ctx, id)
	assertStatus(t, err, http.StatusNotFound)
	assertStatus(t, c.Delete(ctx, id), http.StatusNotFound)
	assertStatus(t, c.Update(ctx, id, []byte(`{"Name":"x"}`)), http.StatusNotFound)
	_, err = c.Create(ctx, []byte(`{"BillingCity":"Nowhere"}`))
	assertStatus(t, err, http.StatusBadRequest)

	deleted, err := c.DeleteAll(ctx)
	require.NoError(t, err)
	assert.Equal(t, 36, deleted)
	all, err = c.List(ctx, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[]`, string(all.JSON))
}

func field(t *testing.T, rec []byte, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(rec, &m))
	return string(m[name])
}

func assertStatus(t *testing.T, err error, status int) {
	t.Helper()
	ue := upstreams.AsError(err)
	require.NotNil(t, ue, "%v", err)
	assert.Equal(t, upstreams.KindRejected, ue.Kind)
	assert.Equal(t, status, ue.Status)
	assert.NotEmpty(t, ue.Message, "the backend's message is kept")
}
