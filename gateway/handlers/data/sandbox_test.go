package data_test

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
	sandboxdata "github.com/restgate/gateway/upstreams/sandbox/dataapi"
)

// sandboxGateway serves the data routes against the reference data API
// over seeded accounts and contacts, answering batches of batch records.
func sandboxGateway(t *testing.T, batch int) http.Handler {
	t.Helper()
	url, _ := handlertest.Sandbox(t, t.TempDir(), func(db *sql.DB) (http.Handler, error) {
		if _, err := sandboxaccounts.New(db); err != nil { // seeds the accounts the contacts attach to
			return nil, err
		}
		return sandboxdata.New(db, sandboxdata.WithBatchSize(batch))
	})
	return newGateway(t, url, handlertest.Client(t))
}

type page struct {
	TotalSize      int                          `json:"totalSize"`
	Done           bool                         `json:"done"`
	NextRecordsURL string                       `json:"nextRecordsUrl"`
	Records        []map[string]json.RawMessage `json:"records"`
}

func TestSandboxQueryPagesThroughTheGateway(t *testing.T) {
	t.Parallel()
	gw := sandboxGateway(t, 3)
	a := get(t, gw, queryPath("v2", "SELECT Id, FirstName, LastName, AccountId FROM Contact"))
	require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	var p page
	require.NoError(t, json.Unmarshal(a.Result, &p))
	require.Greater(t, p.TotalSize, 3, "the seed has more contacts than one batch")
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		require.LessOrEqual(t, len(p.Records), 3)
		for _, r := range p.Records {
			for _, internal := range []string{"Id", "FirstName", "LastName", "AccountId"} {
				assert.NotContains(t, r, internal, "internal names are mapped")
			}
			assert.Contains(t, r, "lastName")
			var id string
			require.NoError(t, json.Unmarshal(r["id"], &id))
			assert.False(t, seen[id], "record %s twice", id)
			seen[id] = true
		}
		if p.Done {
			assert.Empty(t, p.NextRecordsURL)
			break
		}
		require.True(t, strings.HasPrefix(p.NextRecordsURL, "/v2/query/"), p.NextRecordsURL)
		a = get(t, gw, p.NextRecordsURL)
		require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
		p = page{}
		require.NoError(t, json.Unmarshal(a.Result, &p))
		require.Less(t, pages, 1000)
	}
	assert.Len(t, seen, p.TotalSize)
}

func TestSandboxDiscovery(t *testing.T) {
	t.Parallel()
	gw := sandboxGateway(t, 2000)
	tests := []struct {
		desc, path, contains string
	}{
		{desc: "versions", path: "/v2/data", contains: `"/v2/data/v35.0"`},
		{desc: "resources", path: "/v2/data/v35.0", contains: `"sobjects":"/v2/sobjects"`},
		{desc: "sobjects", path: "/v2/sobjects", contains: `"Contact"`},
		{desc: "sobject", path: "/v2/sobjects/Account", contains: `"recentItems"`},
		{desc: "describe", path: "/v2/sobjects/Contact/describe", contains: `"LastName"`},
		{desc: "declared model in its v1 names", path: queryPath("v1", "SELECT Id, Name FROM Account LIMIT 2"), contains: `"accountname"`},
		{desc: "search", path: "/v2/search?q=" + "FIND+%7BOlivia%7D+IN+NAME+FIELDS+RETURNING+Contact%28Id%2C+LastName%29", contains: `"lastName"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			a := get(t, gw, tt.path)
			require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
			assert.Contains(t, string(a.Result), tt.contains)
		})
	}
}

func TestSandboxMalformedQuery(t *testing.T) {
	t.Parallel()
	a := get(t, sandboxGateway(t, 2000), queryPath("v2", "SELECT Id FORM Contact"))
	assert.Equal(t, http.StatusBadRequest, a.Status)
	assert.Equal(t, "QUERY_OPERATION_FAILED", a.ResponseCode.ID)
	assert.Contains(t, a.ResponseCode.FormattedSystemMessage, "expecting FROM")
}
