package dataapi

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// The org reports its usage on every answer, serves the limits resource in
// the REST API's shape, does not count the versions resource, and refuses
// with REQUEST_LIMIT_EXCEEDED once its allowance is spent: what the
// gateway's allowance reads, through its own parser.
func TestOrgAllowance(t *testing.T) {
	t.Parallel()
	org := sfdc.NewOrg(sfdc.OrgOptions{DailyAPIRequests: 4})
	srv, _ := newTestServer(t, WithOrg(org))
	call := func(path string) (int, string, []byte) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+sfdc.DefaultStaticToken)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header.Get("Sforce-Limit-Info"), body
	}
	status, info, _ := call("/services/data")
	assert.Equal(t, http.StatusOK, status)
	assert.Empty(t, info, "the versions resource does not count and says nothing")

	for i, path := range []string{"/services/data/v62.0/sobjects", "/services/data/v62.0/query?q=SELECT+Id+FROM+Account+LIMIT+1"} {
		status, info, _ = call(path)
		require.Equal(t, http.StatusOK, status)
		u, ok := upstreams.ParseLimitInfo(info)
		require.True(t, ok, info)
		assert.Equal(t, upstreams.Usage{Used: int64(i + 1), Limit: 4}, u)
	}
	status, info, body := call("/services/data/v62.0/limits")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "api-usage=3/4", info, "the limits resource is a request like any other")
	assert.Contains(t, string(body), `"DailyApiRequests":{"Max":4,"Remaining":1}`)

	status, info, _ = call("/services/data/v62.0/sobjects")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "api-usage=4/4", info)
	status, info, body = call("/services/data/v62.0/sobjects")
	assert.Equal(t, http.StatusForbidden, status)
	assert.JSONEq(t, `[{"message":"TotalRequests Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}]`, string(body))
	assert.Equal(t, "api-usage=4/4", info, "a refused request is not counted")
	used, limit := org.Usage()
	assert.Equal(t, [2]int64{4, 4}, [2]int64{used, limit})
}
