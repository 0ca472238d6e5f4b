package app

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A duplicate is the same user sending the same method, path with its ids,
// query and body within the window; the metric still counts it under the
// route template.
func TestDuplicatesAreKeyedByRequestNotRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
versions: [v1, v2, v3]
models:
  Account: {fields: [Id, Name]}
  Contact: {fields: [Id, Name]}
routes:
  - {path: "/{version}/settings/model/{objectName}", kind: model}
`, nil)
	calls := []struct {
		path, body string
		dup        bool
	}{
		{path: "/v2/settings/model/Account", dup: false},
		{path: "/v2/settings/model/Contact", dup: false},     // another id on the same route
		{path: "/v2/settings/model/Account", dup: true},      // the same request again
		{path: "/v3/settings/model/Account", dup: false},     // another version is another path
		{path: "/v2/settings/model/Account?a=1", dup: false}, // another query (refused: a is no parameter, but logged)
		{path: "/v2/settings/model/Account?a=2", dup: false},
		{path: "/v2/settings/model/Account?a=1", dup: true},
		{path: "/v2/settings/model/Account", body: `{"name":"A"}`, dup: false}, // another body
		{path: "/v2/settings/model/Account", body: `{"name":"B"}`, dup: false},
		{path: "/v2/settings/model/Account", body: `{"name":"A"}`, dup: true},
	}
	for _, c := range calls {
		rec, _ := h.do(t, "GET", c.path, c.body, nil)
		want := 200
		if strings.Contains(c.path, "?") {
			want = 400
		}
		require.Equal(t, want, rec.Code, "%s %s", c.path, rec.Body.String())
	}
	entries := h.log.all()
	require.Len(t, entries, len(calls))
	for i, c := range calls {
		assert.Equal(t, c.dup, entries[i].Duplicate, "call %d: %s %s", i, c.path, c.body)
	}
	want := `
# HELP gateway_duplicate_requests_total Requests repeating one by the same user with the same method, path, query and body within the duplicate window.
# TYPE gateway_duplicate_requests_total counter
gateway_duplicate_requests_total{route="/{version}/settings/model/{objectName}"} 3
`
	assert.NoError(t, testutil.GatherAndCompare(h.reg, strings.NewReader(want), "gateway_duplicate_requests_total"))
}
