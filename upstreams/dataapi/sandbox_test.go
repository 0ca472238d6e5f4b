package dataapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
	sandboxdata "github.com/restgate/gateway/upstreams/sandbox/dataapi"
	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// newSandboxClient runs the sandbox data API (query batches of 5) over a
// database holding 12 accounts, and returns a client of it.
func newSandboxClient(t *testing.T) *dataapi.Client {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, sfdc.EnsureTables(db))
	for i := range 12 {
		_, err := db.Exec(`INSERT INTO accounts ("Id", "Name") VALUES (?, ?)`,
			fmt.Sprintf("001000000000%03dAAA", i), fmt.Sprintf("Sandbox Account %02d", i))
		require.NoError(t, err)
	}
	h, err := sandboxdata.New(db, sandboxdata.WithBatchSize(5))
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := dataapi.New(srv.URL, "v35.0", srv.Client())
	require.NoError(t, err)
	return c
}

type queryPage struct {
	TotalSize      int               `json:"totalSize"`
	Done           bool              `json:"done"`
	NextRecordsURL string            `json:"nextRecordsUrl"`
	Records        []json.RawMessage `json:"records"`
}

func TestSandboxQueryAndQueryMore(t *testing.T) {
	t.Parallel()
	c := newSandboxClient(t)
	ctx := context.Background()
	body, err := c.Query(ctx, "SELECT Id, Name FROM Account ORDER BY Name")
	require.NoError(t, err)
	var seen []string
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5)
		var p queryPage
		require.NoError(t, json.Unmarshal(body, &p))
		assert.Equal(t, 12, p.TotalSize)
		for _, r := range p.Records {
			var rec struct{ Name string }
			require.NoError(t, json.Unmarshal(r, &rec))
			seen = append(seen, rec.Name)
		}
		if p.Done {
			break
		}
		loc, ok := dataapi.Locator(p.NextRecordsURL)
		require.True(t, ok, p.NextRecordsURL)
		body, err = c.QueryMore(ctx, loc)
		require.NoError(t, err)
	}
	require.Len(t, seen, 12)
	assert.Equal(t, "Sandbox Account 00", seen[0])
	assert.Equal(t, "Sandbox Account 11", seen[11])
}

func TestSandboxDiscovery(t *testing.T) {
	t.Parallel()
	c := newSandboxClient(t)
	ctx := context.Background()
	tests := []struct {
		desc string
		call func() ([]byte, error)
		want string
	}{
		{desc: "versions", call: func() ([]byte, error) { return c.Versions(ctx) }, want: `"version":"35.0"`},
		{desc: "resources", call: func() ([]byte, error) { return c.Resources(ctx, "v35.0") }, want: `"query":"/services/data/v35.0/query"`},
		{desc: "sobjects", call: func() ([]byte, error) { return c.SObjects(ctx) }, want: `"keyPrefix":"003"`},
		{desc: "sobject", call: func() ([]byte, error) { return c.SObject(ctx, "Contact") }, want: `"recentItems":[`},
		{desc: "search", call: func() ([]byte, error) { return c.Search(ctx, "FIND {Account 07} RETURNING Account(Name)") },
			want: `"Name":"Sandbox Account 07"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			body, err := tt.call()
			require.NoError(t, err)
			assert.Contains(t, string(body), tt.want)
		})
	}
}

func TestSandboxErrors(t *testing.T) {
	t.Parallel()
	c := newSandboxClient(t)
	ctx := context.Background()
	tests := []struct {
		desc   string
		call   func() ([]byte, error)
		status int
		code   string
	}{
		{desc: "unknown type", call: func() ([]byte, error) { return c.Describe(ctx, "Opportunity") }, status: 404, code: "NOT_FOUND"},
		{desc: "unknown version", call: func() ([]byte, error) { return c.Resources(ctx, "v99.0") }, status: 404, code: "NOT_FOUND"},
		{desc: "malformed query", call: func() ([]byte, error) { return c.Query(ctx, "SELECT Id FORM Account") }, status: 400, code: "MALFORMED_QUERY"},
		{desc: "unknown field", call: func() ([]byte, error) { return c.Query(ctx, "SELECT Nme FROM Account") }, status: 400, code: "INVALID_FIELD"},
		{desc: "stale locator", call: func() ([]byte, error) { return c.QueryMore(ctx, "01gD0000002HU6KIAW-2000") }, status: 400, code: "INVALID_QUERY_LOCATOR"},
		{desc: "malformed search", call: func() ([]byte, error) { return c.Search(ctx, "FIND Acme") }, status: 400, code: "MALFORMED_SEARCH"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := tt.call()
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "error %v", err)
			assert.Equal(t, upstreams.KindRejected, ue.Kind)
			assert.Equal(t, tt.status, ue.Status)
			assert.Equal(t, tt.code, ue.Code)
			assert.NotEmpty(t, ue.Message)
		})
	}
}

func TestSandboxFieldCache(t *testing.T) {
	t.Parallel()
	c := newSandboxClient(t)
	f := dataapi.NewFieldCache(c, time.Minute)
	ctx := context.Background()
	for _, tt := range []struct {
		typ    string
		fields []sfdc.Field
	}{{"Account", sfdc.AccountFields()}, {"Contact", sfdc.ContactFields()}} {
		got, err := f.Fields(ctx, tt.typ)
		require.NoError(t, err)
		want := make([]string, len(tt.fields))
		for i, fd := range tt.fields {
			want[i] = fd.Name
		}
		assert.Equal(t, want, got, tt.typ)
	}
	_, err := f.Fields(ctx, "Opportunity")
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, http.StatusNotFound, ue.Status)
}
