package accounts

import (
	"database/sql"
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

// flavours are the two account controllers the adapter must work
// against, each with the options the shipped configuration gives it:
// the reference controller, which pages and updates the fields it is
// sent, and the original one, which ignores paging, lists names without
// ids and replaces an account on update.
func flavours() []struct {
	name  string
	build func(*sql.DB) (http.Handler, error)
	opts  Options
	ids   bool // the list carries ids
} {
	return []struct {
		name  string
		build func(*sql.DB) (http.Handler, error)
		opts  Options
		ids   bool
	}{
		{"reference", sandboxaccounts.New, Options{Paging: PagingBackend, Update: UpdateReplace}, true},
		{"reference, adapter options", sandboxaccounts.New, Options{Paging: PagingAdapter, Update: UpdateMerge}, true},
		{"original", sandboxaccounts.NewOriginal, Options{Paging: PagingAdapter, Update: UpdateMerge}, false},
	}
}

func newSandboxClient(t *testing.T, build func(*sql.DB) (http.Handler, error), opts Options) *Client {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := build(db)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return New(srv.URL, srv.Client(), opts)
}

// TestAgainstSandbox runs the adapter's contract over HTTP against both
// flavours of the reference account controller.
func TestAgainstSandbox(t *testing.T) {
	t.Parallel()
	for _, f := range flavours() {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			c := newSandboxClient(t, f.build, f.opts)
			ctx := t.Context()

			all, at, err := c.List(ctx, nil)
			require.NoError(t, err)
			names := fieldOf(t, all.JSON, "Name")
			all.Release()
			require.Len(t, names, 36)
			assert.Equal(t, Placement{Size: -1, Total: -1}, at, "the whole list is not counted")

			page, at, err := c.List(ctx, &Page{Limit: 5, Offset: 3})
			require.NoError(t, err)
			assert.Equal(t, names[3:8], fieldOf(t, page.JSON, "Name"), "the offset is applied")
			page.Release()
			wantTotal := int64(36)
			if f.opts.Paging == PagingBackend {
				wantTotal = -1
			}
			assert.Equal(t, Placement{Start: 3, Size: 5, Total: wantTotal, More: true}, at)

			tail, at, err := c.List(ctx, &Page{Limit: 10, Offset: 30})
			require.NoError(t, err)
			assert.Equal(t, names[30:], fieldOf(t, tail.JSON, "Name"), "a short last page still starts at the offset")
			tail.Release()
			assert.Equal(t, 6, at.Size)
			assert.False(t, at.More)

			id, err := c.Create(ctx, []byte(`{"Name":"Adapter Test Co","BillingCity":"Lisbon"}`))
			require.NoError(t, err)
			assert.True(t, ValidID(id), id)
			rec, err := c.Get(ctx, id)
			require.NoError(t, err)
			assert.JSONEq(t, `"Adapter Test Co"`, field(t, rec.JSON, "Name"))
			rec.Release()

			require.NoError(t, c.Update(ctx, id, []byte(`{"BillingCity":"Porto"}`)))
			rec, err = c.Get(ctx, id[:15])
			require.NoError(t, err)
			assert.JSONEq(t, `"Adapter Test Co"`, field(t, rec.JSON, "Name"), "an update keeps the fields it does not send")
			if f.ids {
				assert.JSONEq(t, `"Porto"`, field(t, rec.JSON, "BillingCity"))
			}
			rec.Release()

			require.NoError(t, c.Delete(ctx, id))
			_, err = c.Get(ctx, id)
			assertStatus(t, err, http.StatusNotFound)
			assertStatus(t, c.Update(ctx, id, []byte(`{"Name":"x"}`)), http.StatusNotFound)

			deleted, err := c.DeleteAll(ctx)
			if !f.ids {
				assert.ErrorIs(t, err, ErrUnidentified)
				assert.Zero(t, deleted)
				all, _, err = c.List(ctx, nil)
				require.NoError(t, err)
				assert.Len(t, fieldOf(t, all.JSON, "Name"), 36, "nothing was deleted")
				all.Release()
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 36, deleted)
			all, _, err = c.List(ctx, nil)
			require.NoError(t, err)
			assert.JSONEq(t, `[]`, string(all.JSON))
			all.Release()
		})
	}
}

// TestOriginalNeedsMergeAndAdapterPaging shows against the original
// controller what the other options would do: backend paging is refused
// rather than trusted (the controller answers every account), and replace
// wipes what the update does not send.
func TestOriginalNeedsMergeAndAdapterPaging(t *testing.T) {
	t.Parallel()
	c := newSandboxClient(t, sandboxaccounts.NewOriginal, Options{Paging: PagingBackend, Update: UpdateReplace})
	ctx := t.Context()
	_, _, err := c.List(ctx, &Page{Limit: 10, Offset: 5})
	ue := upstreams.AsError(err)
	require.NotNil(t, ue, "%v", err)
	assert.Equal(t, upstreams.KindInvalid, ue.Kind)
	assert.Contains(t, ue.Message, "does not page")

	id, err := c.Create(ctx, []byte(`{"Name":"Replaced Ltd"}`))
	require.NoError(t, err)
	require.NoError(t, c.Update(ctx, id, []byte(`{"Rating":"Hot"}`)))
	rec, err := c.Get(ctx, id)
	require.NoError(t, err)
	assert.JSONEq(t, `null`, field(t, rec.JSON, "Name"), "the original replaced the account: its name is gone")
	rec.Release()
}

// fieldOf reads one member of every record of a list.
func fieldOf(t *testing.T, list []byte, name string) []string {
	t.Helper()
	var recs []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(list, &recs))
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r[name])
	}
	return out
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
