package workflow_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// page is the envelope's page member.
type page struct {
	Start int     `json:"start"`
	Size  int     `json:"size"`
	Total *int64  `json:"total"`
	Next  *string `json:"next"`
}

// TestPagingAgainstSandbox: the engine answers every list ten at a time;
// the gateway says so and links the rest, and following next walks the
// whole list without a gap or a repeat, open tasks and closed alike.
func TestPagingAgainstSandbox(t *testing.T) {
	t.Parallel()
	h := newGateway(t, newSandbox(t))
	const loans = 23
	var started []string
	for range loans {
		started = append(started, startLoan(t, h))
	}
	for _, first := range []string{"/v2/tasks?taskDefinitionKey=UnassignedLoan", "/v2/tasks?size=7"} {
		seen := walk(t, h, first)
		assert.ElementsMatch(t, started, seen, first)
	}
	a := do(t, h, request{method: http.MethodGet, target: "/v1/tasks"})
	require.Equal(t, http.StatusOK, a.Status)
	var p page
	require.NoError(t, json.Unmarshal(a.Page, &p), "%s", a.Raw)
	require.NotNil(t, p.Total)
	require.NotNil(t, p.Next, "a first page of ten says more exist")
	assert.Equal(t, page{Start: 0, Size: 10, Total: p.Total, Next: p.Next}, p)
	assert.EqualValues(t, loans, *p.Total)
	assert.Equal(t, "/v1/tasks?size=10&start=10", *p.Next)

	for _, id := range started[:12] {
		require.Equal(t, http.StatusOK, do(t, h, request{method: http.MethodPost, target: "/v2/tasks/" + id + "/claims"}).Status)
		require.Equal(t, http.StatusOK, do(t, h, request{method: http.MethodPost, target: "/v2/tasks/" + id + "/completions",
			body: `{"disposition":"complete"}`}).Status)
	}
	assert.ElementsMatch(t, started[:12], walk(t, h, "/v2/tasks?status=closed&order=desc"))
}

// walk follows next from first and returns the ids of every item.
func walk(t *testing.T, h http.Handler, first string) []string {
	t.Helper()
	var ids []string
	target := first
	for pages := 0; target != ""; pages++ {
		require.Less(t, pages, 10, "next never ends")
		a := do(t, h, request{method: http.MethodGet, target: target})
		require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
		var items []struct{ ID string }
		require.NoError(t, json.Unmarshal(a.Result, &items))
		var p page
		require.NoError(t, json.Unmarshal(a.Page, &p), "%s", a.Raw)
		assert.Equal(t, len(ids), p.Start)
		assert.Equal(t, len(items), p.Size)
		for _, it := range items {
			ids = append(ids, it.ID)
		}
		target = ""
		if p.Next != nil {
			target = *p.Next
		}
	}
	return ids
}
