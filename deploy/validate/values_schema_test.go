package main

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// valuesSchema is the chart's values.schema.json, decoded.
func valuesSchema(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(chartDir + "/values.schema.json")
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// schemaProperties walks the declared properties of a schema (and of the
// schemas of its array items and map values), calling visit with each
// property's path and schema.
func schemaProperties(s map[string]any, at string, visit func(path string, prop any)) {
	if props, ok := s["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			visit(at+"."+n, props[n])
			if sub, ok := props[n].(map[string]any); ok {
				schemaProperties(sub, at+"."+n, visit)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := s[k].(map[string]any); ok {
			schemaProperties(sub, at+"[]", visit)
		}
	}
}

// TestValuesSchemaDescribesEveryValue checks that every value the schema
// declares is typed and described, and that every object refuses keys it
// does not declare (or types them, for maps), so a misspelt key is an error.
func TestValuesSchemaDescribesEveryValue(t *testing.T) {
	t.Parallel()
	s := valuesSchema(t)
	assert.Equal(t, "http://json-schema.org/draft-07/schema#", s["$schema"])
	assert.Equal(t, false, s["additionalProperties"])
	n := 0
	schemaProperties(s, "", func(path string, prop any) {
		if prop == false {
			return // a name refused outright (env variables the chart sets, credentials)
		}
		n++
		p, ok := prop.(map[string]any)
		require.True(t, ok, "%s: not a schema", path)
		assert.NotEmpty(t, p["description"], "%s has no description", path)
		assert.NotNil(t, p["type"], "%s has no type", path)
		if p["type"] == "object" {
			_, closed := p["additionalProperties"]
			_, declared := p["properties"]
			assert.True(t, closed || !declared, "%s declares properties but lets others through", path)
		}
	})
	assert.Greater(t, n, 100)
}

// TestValuesFileMatchesTheSchema checks values.yaml against the schema's
// declarations both ways: every default is declared (helm lint checks the
// types), and every declared value but the required and optional ones
// listed here has its default, and its comment, in values.yaml.
func TestValuesFileMatchesTheSchema(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(chartDir + "/values.yaml")
	require.NoError(t, err)
	var values map[string]any
	require.NoError(t, yaml.Unmarshal(b, &values))
	declared := map[string]bool{}
	passedThrough := map[string]bool{} // Kubernetes objects, checked against their own schemas
	schemaProperties(valuesSchema(t), "", func(path string, prop any) {
		if prop == false {
			return
		}
		declared[path] = true
		if p, ok := prop.(map[string]any); ok && (p["allOf"] != nil || (p["type"] == "object" && p["properties"] == nil && p["additionalProperties"] == nil)) {
			passedThrough[path] = true
		}
	})
	present := map[string]bool{}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				present[at+"."+k] = true
				walk(sub, at+"."+k)
			}
		case []any:
			for _, sub := range v {
				walk(sub, at+"[]")
			}
		}
	}
	walk(values, "")
	for p := range present {
		if under(p, ".secrets.env") || underAny(p, passedThrough) {
			continue // a map of credentials by environment variable; a Kubernetes object
		}
		assert.True(t, declared[p], "values.yaml sets %s, which the schema does not declare", p)
	}
	notInValuesFile := map[string]bool{
		".global": true, ".replicaCount": true, // Helm's; refused with autoscaling on
		".env.ACCOUNTS_URL": true, ".env.WORKFLOW_URL": true, ".env.DATA_URL": true, ".env.FILES_URL": true, ".env.FEED_URL": true,
		".resources.limits.cpu": true, // no CPU limit by default (values.yaml says why)
	}
	for p := range declared {
		if notInValuesFile[p] || containsItems(p) {
			continue
		}
		assert.True(t, present[p], "the schema declares %s, which values.yaml does not set", p)
	}
}

// under reports whether path is inside prefix (not prefix itself).
func under(path, prefix string) bool {
	return strings.HasPrefix(path, prefix+".") || strings.HasPrefix(path, prefix+"[]")
}

func underAny(path string, prefixes map[string]bool) bool {
	for p := range prefixes {
		if under(path, p) {
			return true
		}
	}
	return false
}

// containsItems reports a path inside a list's items or a map's values,
// which values.yaml leaves empty by default.
func containsItems(path string) bool {
	return strings.Contains(path, "[]")
}
