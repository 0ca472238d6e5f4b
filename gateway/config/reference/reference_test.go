package reference

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := ModuleRoot(".")
	require.NoError(t, err)
	return root
}

// TestGeneratedFilesAreCurrent regenerates the reference, the schema and
// reload.md's list from the config types and compares them with the files.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	files, err := Generate(root)
	require.NoError(t, err)
	for name, want := range files {
		have, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		if !bytes.Equal(have, want) {
			t.Errorf("%s is not current: run %s (from the module root) and commit the result", name, Command)
		}
	}
}

// TestEveryKeyIsDocumented: each key has a doc comment, which the
// reference and the editors' hover show.
func TestEveryKeyIsDocumented(t *testing.T) {
	t.Parallel()
	entries, err := Entries(moduleRoot(t))
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotEmpty(t, e.Doc, "%s (%s.%s) needs a doc comment saying what it does and its default",
			e.Path, e.Owner.Name(), e.Field.Name)
	}
}

// TestShippedConfigsPointAtTheSchema: both shipped copies name the schema
// on their first line, for editors, by a path relative to the copy that
// leads to the schema.
func TestShippedConfigsPointAtTheSchema(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	for _, name := range []string{ShippedConfig, "deploy/helm/gateway/files/config.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		want, err := filepath.Rel(filepath.Dir(filepath.FromSlash(name)), filepath.FromSlash(SchemaFile))
		require.NoError(t, err)
		first, _, _ := strings.Cut(string(data), "\n")
		assert.Equal(t, "# yaml-language-server: $schema="+filepath.ToSlash(want), first, name)
	}
}

// TestSchemaAcceptsTheShippedConfigAndRefusesMistakes validates YAML
// against the generated schema as an editor would.
func TestSchemaAcceptsTheShippedConfigAndRefusesMistakes(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	schemaPath := filepath.Join(root, filepath.FromSlash(SchemaFile))
	c := jsonschema.NewCompiler()
	schema, err := c.Compile(schemaPath)
	require.NoError(t, err)
	shipped, err := os.ReadFile(filepath.Join(root, ShippedConfig))
	require.NoError(t, err)
	tests := []struct {
		desc, yaml string
		valid      bool
	}{
		{desc: "the shipped config", yaml: string(shipped), valid: true},
		{desc: "durations, variables and nulls", yaml: "server:\n  timeouts: {read: 1m30s, write: \"${W:-5s}\"}\n  tls: {certFile: }\nauth:\n  rateLimit:\n    burst: ${B}\n", valid: true},
		{desc: "an unknown key", yaml: "server: {listn: x}\n"},
		{desc: "an unknown key of an upstream", yaml: "upstreams: {a: {url: sandbox, tiemout: 1s}}\n"},
		{desc: "a duration without a unit", yaml: "server: {timeouts: {read: 30}}\n"},
		{desc: "a word for a number", yaml: "mapping: {maxDepth: deep}\n"},
		{desc: "a negative count", yaml: "upstreams: {a: {breaker: {consecutiveFailures: -1}}}\n"},
		{desc: "a list for a string", yaml: "routes: [{path: [a]}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var v any
			require.NoError(t, yaml.Unmarshal([]byte(tt.yaml), &v))
			doc, err := json.Marshal(v)
			require.NoError(t, err)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
			require.NoError(t, err)
			err = schema.Validate(inst)
			if tt.valid {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

func TestReferenceRows(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	entries, err := Entries(root)
	require.NoError(t, err)
	md := string(Markdown(entries))
	for _, row := range []string{
		"| `server.listen` | string | `127.0.0.1:8443` | `GATEWAY_LISTEN` | restart |",
		"| `server.limits.maxURLLength` | integer | `4096` |  | yes |",
		"| `server.timeouts.write` | duration | `1m` |  | restart |",
		"| `upstreams.<name>.url` | string |  | `ACCOUNTS_URL` (accounts), `WORKFLOW_URL` (workflow), `DATA_URL` (data), `FILES_URL` (files), `FEED_URL` (feed) | yes |",
		"| `upstreams.<name>.retry.backoff` | duration | `25ms` |",
		"| `log.collector.retry.backoff` | duration | `200ms` |",
		"| `routes[].methods` | list of strings | `[GET]` |",
		"| `routes[].versions.<name>.serializeNulls` | boolean | `true` |",
		"| `cluster.redis.keyPrefix` | string | `restgate:` | `GATEWAY_REDIS_KEY_PREFIX` | restart |",
	} {
		assert.Contains(t, md, row)
	}
}
