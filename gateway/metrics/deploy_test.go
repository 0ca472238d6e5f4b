package metrics

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

const (
	dashboardPath = "../../deploy/grafana/gateway-dashboard.json"
	rulesPath     = "../../deploy/prometheus/rules.yaml"
)

// The dashboard and the alert rules are only as good as the names they
// query: a renamed metric would leave a panel empty and an alert silent
// without any error. These tests hold them to what New exports.

func TestDashboardQueriesExportedMetrics(t *testing.T) {
	t.Parallel()
	families := exportedFamilies(t)
	_, records := ruleExprs(t)
	exprs := dashboardExprs(t)
	require.NotEmpty(t, exprs)
	assert.Empty(t, unknownNames(exprs, families, records))
}

func TestRulesQueryExportedMetrics(t *testing.T) {
	t.Parallel()
	families := exportedFamilies(t)
	exprs, records := ruleExprs(t)
	require.NotEmpty(t, exprs)
	assert.Empty(t, unknownNames(exprs, families, records))
}

func TestDashboardShowsEveryGatewayMetric(t *testing.T) {
	t.Parallel()
	used := map[string]bool{}
	for _, e := range dashboardExprs(t) {
		for _, name := range queriedNames(e) {
			used[name] = true
		}
	}
	families := exportedFamilies(t)
	for name, mf := range families {
		if !strings.HasPrefix(name, namespace+"_") {
			continue
		}
		shown := used[name]
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			shown = shown || used[name+"_bucket"] || used[name+"_sum"] || used[name+"_count"]
		}
		assert.True(t, shown, "no panel queries %s", name)
	}
}

func TestDashboardPanelsHaveQueries(t *testing.T) {
	t.Parallel()
	type variable struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	var dash struct {
		SchemaVersion int `json:"schemaVersion"`
		Panels        []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []variable `json:"list"`
		} `json:"templating"`
	}
	raw, err := os.ReadFile(dashboardPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &dash))

	assert.GreaterOrEqual(t, dash.SchemaVersion, 39)
	assert.Contains(t, dash.Templating.List, variable{Name: "datasource", Type: "datasource"}, "a datasource template variable")
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		assert.NotEmpty(t, p.Targets, "panel %q", p.Title)
		for _, tg := range p.Targets {
			assert.NotEmpty(t, queriedNames(tg.Expr), "panel %q queries no gateway metric: %q", p.Title, tg.Expr)
		}
	}
}

func TestUnknownNames(t *testing.T) {
	t.Parallel()
	families := exportedFamilies(t)
	records := []string{"route:gateway_requests:rate5m"}
	tests := []struct {
		desc string
		expr string
		want []string
	}{
		{desc: "counter", expr: `sum by (id) (rate(gateway_errors_total[5m]))`},
		{desc: "histogram series", expr: `histogram_quantile(0.99, sum by (le) (rate(gateway_request_duration_seconds_bucket{phase="total"}[$__rate_interval])))`},
		{desc: "histogram sum and count", expr: `rate(gateway_upstream_call_duration_seconds_sum[5m]) / rate(gateway_upstream_call_duration_seconds_count[5m])`},
		{desc: "recording rule", expr: `route:gateway_requests:rate5m > 1`},
		{desc: "names inside label values are not queries", expr: `gateway_errors_total{id="gateway_nope_total"}`},
		{desc: "subquery step is not a name", expr: `max_over_time(gateway_breaker_state[30m:1m])`},
		{desc: "misspelt metric", expr: `rate(gateway_error_total[5m])`, want: []string{"gateway_error_total"}},
		{desc: "bucket of a counter", expr: `rate(gateway_errors_total_bucket[5m])`, want: []string{"gateway_errors_total_bucket"}},
		{desc: "unknown recording rule", expr: `route:gateway_requests:rate1h`, want: []string{"route:gateway_requests:rate1h"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, unknownNames([]string{tc.expr}, families, records))
		})
	}
}

// exportedFamilies builds the metrics on a fresh registry, touches every
// one so vectors have a child, and returns what a scrape would show.
func exportedFamilies(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	m, reg := newTestMetrics(t)
	m.ObserveRequest("/{version}/accounts", "GET", "v1", 200, time.Millisecond, time.Microsecond, "")
	m.RequestStarted()
	m.CountError("URL_INVALID", 404)
	m.CountDuplicate("/{version}/accounts")
	m.CountReload(true)
	m.CallDone("accounts", "success", time.Millisecond)
	m.SetBreakerState("accounts", "closed")
	m.BreakerChanged("accounts", "closed", "open")
	m.ConcurrencyLimit("accounts", 64)
	m.QueueDepth(1)
	m.Sent(1)
	m.BatchFailed()
	m.Dropped("queue_full", 1)
	m.DiskQueue(1, 1)
	m.AllowanceUsage("data", 18, 15000, 1500, time.Now())
	m.AllowanceReserve("data", false)
	m.AllowanceExceeded("data")
	m.QuotaDecision("user:reader", true)
	m.SetQuotaSource(quotaCounter(t))
	return gatherFamilies(t, reg)
}

func gatherFamilies(t *testing.T, g prometheus.Gatherer) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := g.Gather()
	require.NoError(t, err)
	out := make(map[string]*dto.MetricFamily, len(mfs))
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// dashboardExprs returns every PromQL string of the dashboard: panel
// targets and template variable queries.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(dashboardPath)
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(raw, &doc))
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				if s, ok := child.(string); ok && (k == "expr" || k == "query" || k == "definition") {
					exprs = append(exprs, s)
					continue
				}
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(doc)
	return exprs
}

// ruleExprs returns the expressions of every rule and the names the
// recording rules define.
func ruleExprs(t *testing.T) (exprs, records []string) {
	t.Helper()
	raw, err := os.ReadFile(rulesPath)
	require.NoError(t, err)
	var file struct {
		Groups []struct {
			Rules []struct {
				Record string `yaml:"record"`
				Alert  string `yaml:"alert"`
				Expr   string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &file))
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
			if r.Record != "" {
				records = append(records, r.Record)
			}
		}
	}
	return exprs, records
}

// unknownNames lists the names exprs query that are neither exported
// gateway metrics (histogram series suffixes allowed) nor recording rules.
func unknownNames(exprs []string, families map[string]*dto.MetricFamily, records []string) []string {
	var unknown []string
	for _, e := range exprs {
		for _, name := range queriedNames(e) {
			if !known(name, families, records) && !slices.Contains(unknown, name) {
				unknown = append(unknown, name)
			}
		}
	}
	return unknown
}

func known(name string, families map[string]*dto.MetricFamily, records []string) bool {
	if strings.Contains(name, ":") {
		return slices.Contains(records, name)
	}
	if _, ok := families[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		if mf, ok := families[base]; ok {
			typ := mf.GetType()
			if typ == dto.MetricType_HISTOGRAM || (typ == dto.MetricType_SUMMARY && suffix != "_bucket") {
				return true
			}
		}
	}
	return false
}
