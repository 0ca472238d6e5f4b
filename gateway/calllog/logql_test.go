package calllog

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	lokiDashboardPath = "../../deploy/grafana/gateway-loki-dashboard.json"
	observabilityDoc  = "../../docs/guides/observability.md"
)

// The Loki dashboard and the documented LogQL are only as good as the
// labels and fields they name: a label the sink does not set, or a JSON
// field the entry does not have, leaves a panel empty without an error.
// These tests hold them to what the loki sink sends.

var (
	selectorRE  = regexp.MustCompile(`\{([^{}]*)\}`)
	matcherRE   = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)\s*"`)
	jsonStageRE = regexp.MustCompile(`\|\s*json\s+((?:[a-zA-Z_][a-zA-Z0-9_]*="[^"]*"\s*,?\s*)+)`)
	extractRE   = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"`)
	groupingRE  = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	unwrapRE    = regexp.MustCompile(`\|\s*unwrap\s+([a-zA-Z_][a-zA-Z0-9_]*)`)
	filterRE    = regexp.MustCompile(`\|\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:>|<|>=|<=|=|!=)`)
)

// lokiLabels are the stream labels the loki sink sets with its defaults.
func lokiLabels() map[string]bool {
	return map[string]bool{"service_name": true, "route": true, "status": true}
}

// entryFields are the members of the JSON line the loki sink sends.
func entryFields(t *testing.T) map[string]bool {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(appendJSONObject(nil, &item{id: []byte("x"), e: richEntry(1)}), &m))
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// checkLogQL returns what expr names that the sink does not send.
func checkLogQL(expr string, labels, fields map[string]bool) []string {
	var bad []string
	known := map[string]bool{}
	for l := range labels {
		known[l] = true
	}
	for _, sel := range selectorRE.FindAllStringSubmatch(expr, -1) {
		for _, m := range matcherRE.FindAllStringSubmatch(sel[1], -1) {
			if !labels[m[1]] {
				bad = append(bad, "label "+m[1])
			}
		}
	}
	for _, stage := range jsonStageRE.FindAllStringSubmatch(expr, -1) {
		for _, m := range extractRE.FindAllStringSubmatch(stage[1], -1) {
			if !fields[m[2]] {
				bad = append(bad, "field "+m[2])
			}
			if labels[m[1]] {
				bad = append(bad, "extracted name "+m[1]+" shadows a stream label")
			}
			known[m[1]] = true
		}
	}
	for _, m := range unwrapRE.FindAllStringSubmatch(expr, -1) {
		if !known[m[1]] {
			bad = append(bad, "unwrapped "+m[1])
		}
	}
	for _, m := range filterRE.FindAllStringSubmatch(expr, -1) {
		if m[1] != "json" && m[1] != "unwrap" && !known[m[1]] {
			bad = append(bad, "filtered "+m[1])
		}
	}
	for _, g := range groupingRE.FindAllStringSubmatch(expr, -1) {
		for _, name := range strings.Split(g[1], ",") {
			if name = strings.TrimSpace(name); name != "" && !known[name] {
				bad = append(bad, "grouped by "+name)
			}
		}
	}
	return bad
}

func TestLokiDashboardQueriesWhatTheSinkSends(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(lokiDashboardPath)
	require.NoError(t, err)
	var dash struct {
		SchemaVersion int `json:"schemaVersion"`
		Panels        []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr       string `json:"expr"`
				Datasource struct {
					Type string `json:"type"`
					UID  string `json:"uid"`
				} `json:"datasource"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query string `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal(raw, &dash))
	assert.GreaterOrEqual(t, dash.SchemaVersion, 39)
	require.Len(t, dash.Templating.List, 1)
	assert.Equal(t, "datasource", dash.Templating.List[0].Name)
	assert.Equal(t, "loki", dash.Templating.List[0].Query)
	labels, fields := lokiLabels(), entryFields(t)
	var exprs []string
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		require.NotEmpty(t, p.Targets, "panel %q", p.Title)
		for _, tg := range p.Targets {
			assert.Equal(t, "loki", tg.Datasource.Type, "panel %q", p.Title)
			assert.Equal(t, "${datasource}", tg.Datasource.UID, "panel %q", p.Title)
			assert.Contains(t, tg.Expr, `service_name="restgate"`, "panel %q", p.Title)
			assert.Empty(t, checkLogQL(tg.Expr, labels, fields), "panel %q: %s", p.Title, tg.Expr)
			exprs = append(exprs, tg.Expr)
		}
	}
	all := strings.Join(exprs, "\n")
	for _, q := range []string{`trace="traceId"`, `dup="duplicate"`, `code="responseCode"`} {
		assert.Contains(t, all, q, "the dashboard answers the three analytics questions")
	}
}

func TestDocumentedLogQLQueriesWhatTheSinkSends(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(observabilityDoc)
	require.NoError(t, err)
	labels, fields := lokiLabels(), entryFields(t)
	n := 0
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "    ") || !strings.Contains(line, `{service_name="restgate"`) {
			continue
		}
		n++
		assert.Empty(t, checkLogQL(strings.TrimSpace(line), labels, fields), line)
	}
	assert.GreaterOrEqual(t, n, 4, "the guide's LogQL examples were found")
}

func TestCheckLogQLCatchesMistakes(t *testing.T) {
	t.Parallel()
	labels, fields := lokiLabels(), entryFields(t)
	for expr, want := range map[string]string{
		`{job="restgate"}`: "label job",
		`{service_name="restgate"} | json t="totaltime"`:                                     "field totaltime",
		`{service_name="restgate"} | json route="route"`:                                     "extracted name route shadows a stream label",
		`sum by (user) (count_over_time({service_name="restgate"} [1m]))`:                    "grouped by user",
		`max_over_time({service_name="restgate"} | json t="totalTime" | unwrap total [1m])`:  "unwrapped total",
		`{service_name="restgate"} | json t="totalTime" | total > 1000`:                      "filtered total",
		`sum by (route) (count_over_time({service_name="restgate"} | json u="userId" [1m]))`: "",
	} {
		got := checkLogQL(expr, labels, fields)
		if want == "" {
			assert.Empty(t, got, expr)
			continue
		}
		assert.Contains(t, got, want, expr)
	}
}
