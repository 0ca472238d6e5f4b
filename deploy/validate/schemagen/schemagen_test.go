package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yannh/kubeconform/pkg/validator"
)

// fixtures resolves the modules of the tests to testdata: k8s.io/kubernetes
// at v1.0.0 (a small OpenAPI v3 document set shaped like the real one) and
// example.com/crds at v0.1.0.
func fixtures(module, version string) (string, error) {
	switch module + "@" + version {
	case "k8s.io/kubernetes@v1.0.0":
		return "testdata/kubernetes", nil
	case "example.com/crds@v0.1.0":
		return "testdata", nil
	}
	return "", errors.New("no module " + module + "@" + version)
}

var widgets = ModuleFile{Module: "example.com/crds", Version: "v0.1.0", Path: "crds/widgets.yaml"}

// generated writes the fixtures' schemas into a temporary directory and
// returns a kubeconform validator reading them as CI does (-strict).
func generated(t *testing.T) validator.Validator {
	t.Helper()
	out := filepath.Join(t.TempDir(), "schemas")
	counts, err := Generate(out, []string{"1.0.0"}, []ModuleFile{widgets}, fixtures)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"1.0.0": 4}, counts) // Deployment, Service, Tree, Widget v1
	v, err := validator.New([]string{out + "/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"},
		validator.Opts{Strict: true, KubernetesVersion: "1.0.0"})
	require.NoError(t, err)
	return v
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: gw
  annotations: {a: b}
spec:
  replicas: 2
  maxSurge: 25%
  template:
    metadata:
      labels: {app: gw}
    spec:
      containers:
        - name: gateway
          resources: {limits: {memory: 512Mi, cpu: 1}}
`

const widget = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  labels: {app: gw}
spec:
  size: 50%
  port: 8443
  config: {anything: [1, {goes: here}]}
  default: a property named like a keyword
`

func TestGeneratedSchemasUnderKubeconform(t *testing.T) {
	t.Parallel()
	v := generated(t)
	tests := []struct {
		desc     string
		manifest string
		want     validator.Status
		wantMsg  string
	}{
		{desc: "a valid Deployment", manifest: deployment, want: validator.Valid},
		{desc: "an int-or-string as a number", manifest: strings.Replace(deployment, "maxSurge: 25%", "maxSurge: 1", 1), want: validator.Valid},
		{desc: "an empty key is null", manifest: strings.Replace(deployment, "      labels: {app: gw}\n", "      annotations:\n      labels: {app: gw}\n", 1),
			want: validator.Invalid, wantMsg: "at '/spec/template/metadata/annotations': got null, want object"},
		{desc: "an explicit null in a list", manifest: strings.Replace(deployment, "        - name: gateway\n", "        - ~\n        - name: gateway\n", 1),
			want: validator.Invalid, wantMsg: "/spec/template/spec/containers/0"},
		{desc: "an unknown field", manifest: strings.Replace(deployment, "  replicas: 2\n", "  replicas: 2\n  replica: 2\n", 1),
			want: validator.Invalid, wantMsg: "additional properties 'replica' not allowed"},
		{desc: "an unknown field in metadata", manifest: strings.Replace(deployment, "  name: gw\n", "  name: gw\n  label: {}\n", 1),
			want: validator.Invalid, wantMsg: "additional properties 'label' not allowed"},
		{desc: "a wrong type", manifest: strings.Replace(deployment, "replicas: 2", "replicas: two", 1),
			want: validator.Invalid, wantMsg: "at '/spec/replicas': got string, want integer"},
		{desc: "a required field missing", manifest: strings.Replace(deployment, "        - name: gateway\n          resources:", "        - resources:", 1),
			want: validator.Invalid, wantMsg: "missing property 'name'"},
		{desc: "a core kind, nullable where the document says so", manifest: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {clusterIP: null}\n",
			want: validator.Valid},
		{desc: "a recursive schema, properties named like keywords", manifest: "apiVersion: example.k8s.io/v1\nkind: Tree\nmetadata: {name: t}\n" +
			"root: {description: d, default: x, children: [{children: [{description: leaf}]}]}\n", want: validator.Valid},
		{desc: "an unknown field deep in a recursive schema", manifest: "apiVersion: example.k8s.io/v1\nkind: Tree\nmetadata: {name: t}\n" +
			"root: {children: [{children: [{leaf: true}]}]}\n", want: validator.Invalid, wantMsg: "additional properties 'leaf' not allowed"},
		{desc: "a CRD's kind", manifest: widget, want: validator.Valid},
		{desc: "a CRD's kind with the ObjectMeta checked", manifest: strings.Replace(widget, "  labels: {app: gw}\n", "  labels:\n", 1),
			want: validator.Invalid, wantMsg: "at '/metadata/labels': got null, want object"},
		{desc: "a CRD's unknown field", manifest: strings.Replace(widget, "  size: 50%\n", "  size: 50%\n  colour: red\n", 1),
			want: validator.Invalid, wantMsg: "additional properties 'colour' not allowed"},
		{desc: "a CRD's pattern", manifest: strings.Replace(widget, "size: 50%", "size: half", 1),
			want: validator.Invalid, wantMsg: "does not match pattern"},
		{desc: "a CRD's int-or-string without anyOf", manifest: strings.Replace(widget, "port: 8443", "port: [8443]", 1),
			want: validator.Invalid, wantMsg: "/spec/port"},
		{desc: "a CRD's nullable", manifest: widget + "  note: null\n", want: validator.Valid},
		{desc: "a version the CRD does not serve", manifest: strings.Replace(widget, "example.com/v1", "example.com/v2alpha1", 1),
			want: validator.Error, wantMsg: "could not find schema"},
		{desc: "a kind of another apiVersion", manifest: strings.Replace(deployment, "apps/v1", "apps/v1beta2", 1),
			want: validator.Error, wantMsg: "could not find schema"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			results := v.Validate(tc.desc, io.NopCloser(strings.NewReader(tc.manifest)))
			require.Len(t, results, 1)
			res := results[0]
			assert.Equal(t, tc.want, res.Status, "%v", res.Err)
			if tc.wantMsg != "" {
				require.Error(t, res.Err)
				assert.Contains(t, res.Err.Error(), tc.wantMsg)
			}
		})
	}
}

func TestGenerateReplacesTheDirectoryWhole(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "schemas")
	require.NoError(t, os.MkdirAll(filepath.Join(out, "v0.9.0-standalone-strict"), 0o755))
	_, err := Generate(out, []string{"1.0.0"}, nil, fixtures)
	require.NoError(t, err)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the stale version is gone")
	assert.Equal(t, "v1.0.0-standalone-strict", entries[0].Name())
	files, err := os.ReadDir(filepath.Join(out, entries[0].Name()))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	assert.Equal(t, []string{"deployment-apps-v1.json", "service-v1.json", "tree-example-v1.json"}, names)

	// A failing run leaves the last good one in place and no temporary directory.
	_, err = Generate(out, []string{"1.0.0", "2.0.0"}, nil, fixtures)
	require.ErrorContains(t, err, "no module k8s.io/kubernetes@v2.0.0")
	siblings, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	require.Len(t, siblings, 1)
	_, err = os.Stat(filepath.Join(out, "v1.0.0-standalone-strict", "deployment-apps-v1.json"))
	assert.NoError(t, err)
}

func TestStrictSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		in      map[string]any
		want    map[string]any
		refs    []string
		wantErr string
	}{
		{desc: "prose and extensions dropped, properties closed",
			in: map[string]any{"description": "d", "type": "object", "x-kubernetes-map-type": "atomic",
				"properties": map[string]any{"a": map[string]any{"type": "string", "default": "x"}}},
			want: map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"a": map[string]any{"type": "string"}}}},
		{desc: "properties named like keywords kept",
			in: map[string]any{"properties": map[string]any{"description": map[string]any{"type": "string"}, "x-y": map[string]any{}}},
			want: map[string]any{"additionalProperties": false,
				"properties": map[string]any{"description": map[string]any{"type": "string"}, "x-y": map[string]any{}}}},
		{desc: "a map keeps its additionalProperties",
			in:   map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string", "default": ""}},
			want: map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}},
		{desc: "unknown fields preserved where the CRD says so",
			in:   map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": map[string]any{}},
			want: map[string]any{"type": "object", "properties": map[string]any{}}},
		{desc: "nullable allows null, and only there",
			in:   map[string]any{"type": "string", "nullable": true},
			want: map[string]any{"type": []any{"string", "null"}}},
		{desc: "references rewritten inside allOf and items",
			in:   map[string]any{"type": "array", "items": map[string]any{"allOf": []any{map[string]any{"$ref": "#/components/schemas/A"}}, "default": map[string]any{}}},
			want: map[string]any{"type": "array", "items": map[string]any{"allOf": []any{map[string]any{"$ref": "#/definitions/A"}}}},
			refs: []string{"A"}},
		{desc: "int-or-string without a type",
			in:   map[string]any{"x-kubernetes-int-or-string": true},
			want: map[string]any{"anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}},
		{desc: "a reference outside the document", in: map[string]any{"$ref": "other.json#/x"}, wantErr: "only #/components/schemas/"},
		{desc: "properties not an object", in: map[string]any{"properties": []any{}}, wantErr: "properties is not an object"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			refs := map[string]bool{}
			got, err := strictSchema(tc.in, refs)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, len(tc.refs), len(refs))
			for _, r := range tc.refs {
				assert.True(t, refs[r], r)
			}
		})
	}
}

func TestKindClaimedTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := `{"components":{"schemas":{
	  "a.Thing":{"type":"object","x-kubernetes-group-version-kind":[{"group":"x","version":"v1","kind":"Thing"}]},
	  "b.Thing":{"type":"object","x-kubernetes-group-version-kind":[{"group":"x","version":"v1","kind":"Thing"}]}}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "apis__x__v1_openapi.json"), []byte(doc), 0o644))
	d, err := LoadDefinitions(dir)
	require.NoError(t, err)
	_, err = d.Kinds()
	assert.ErrorContains(t, err, "a.Thing and b.Thing both claim x/v1 Thing")
}

func TestFileName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		gvk  GVK
		want string
	}{
		{GVK{Version: "v1", Kind: "Service"}, "service-v1.json"},
		{GVK{Group: "apps", Version: "v1", Kind: "Deployment"}, "deployment-apps-v1.json"},
		{GVK{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}, "horizontalpodautoscaler-autoscaling-v2.json"},
		{GVK{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}, "httproute-gateway-v1.json"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.gvk.FileName())
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "schemas")
	tests := []struct {
		desc    string
		args    []string
		want    int
		wantOut string
		wantErr string
	}{
		{desc: "versions and a CRD", args: []string{"-out", out, "-kubernetes", "1.0.0", "-crd", "example.com/crds@v0.1.0/crds/widgets.yaml"},
			wantOut: "v1.0.0: 4 schemas\n"},
		{desc: "no -out", args: []string{"-kubernetes", "1.0.0"}, want: 2, wantErr: "-out and -kubernetes are required"},
		{desc: "a CRD without its version", args: []string{"-out", out, "-kubernetes", "1.0.0", "-crd", "example.com/crds/widgets.yaml"},
			want: 2, wantErr: "want MODULE@VERSION/PATH"},
		{desc: "a missing CRD file", args: []string{"-out", out, "-kubernetes", "1.0.0", "-crd", "example.com/crds@v0.1.0/crds/gadgets.yaml"},
			want: 1, wantErr: "gadgets.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, tc.want, run(tc.args, &stdout, &stderr, fixtures), stderr.String())
			assert.Equal(t, tc.wantOut, stdout.String())
			assert.Contains(t, stderr.String(), tc.wantErr)
		})
	}
}

func TestUpdateValuesSchema(t *testing.T) {
	t.Parallel()
	defs, err := LoadDefinitions("testdata/kubernetes/api/openapi-spec/v3")
	require.NoError(t, err)
	doc := `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "properties": {
    "port": {"type": "integer", "description": "<api> & more", "maximum": 65535, "multipleOf": 0.5},
    "container": {"type": "object", "allOf": [{"$ref": "#/definitions/io.k8s.api.core.v1.Container"}]}
  },
  "definitions": {"io.k8s.stale.v1.Gone": {"type": "object"}}
}`
	got, err := UpdateValuesSchema([]byte(doc), defs)
	require.NoError(t, err)
	want := `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "properties": {
    "port": {
      "type": "integer",
      "description": "<api> & more",
      "maximum": 65535,
      "multipleOf": 0.5
    },
    "container": {
      "type": "object",
      "allOf": [
        {
          "$ref": "#/definitions/io.k8s.api.core.v1.Container"
        }
      ]
    }
  },
  "definitions": {
    "io.k8s.api.core.v1.Container": {
      "additionalProperties": false,
      "properties": {
        "name": {
          "type": "string"
        },
        "resources": {
          "additionalProperties": false,
          "properties": {
            "limits": {
              "additionalProperties": {
                "allOf": [
                  {
                    "$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"
                  }
                ]
              },
              "type": "object"
            }
          },
          "type": "object"
        }
      },
      "required": [
        "name"
      ],
      "type": "object"
    },
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {
      "oneOf": [
        {
          "type": "string"
        },
        {
          "type": "number"
        }
      ]
    }
  }
}
`
	assert.Equal(t, want, string(got))
	again, err := UpdateValuesSchema(got, defs)
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again), "a second run changes nothing")

	for _, tc := range []struct{ doc, wantErr string }{
		{`{"properties": {"a": {"$ref": "#/definitions/mine"}}}`, "#/definitions/mine is not a Kubernetes schema"},
		{`{"properties": {"a": {"$ref": "#/definitions/io.k8s.api.core.v1.Missing"}}}`, "io.k8s.api.core.v1.Missing, which the document does not define"},
		{`{"a": 1} {"b": 2}`, "more after the document"},
		{`[1]`, "not an object"},
		{`{"a": 1, "a": 2}`, `key "a" repeated`},
		{`{"a": `, "EOF"},
	} {
		_, err := UpdateValuesSchema([]byte(tc.doc), defs)
		assert.ErrorContains(t, err, tc.wantErr, tc.doc)
	}
}

func TestRunValuesSchema(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "values.schema.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"properties": {"c": {"allOf": [{"$ref": "#/definitions/io.k8s.api.core.v1.Container"}]}}}`), 0o644))
	args := []string{"-values-schema", file, "-kubernetes", "1.0.0"}
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run(append(args, "-check"), &stdout, &stderr, fixtures))
	assert.Contains(t, stderr.String(), "are not those of 1.0.0")
	stderr.Reset()
	assert.Equal(t, 0, run(args, &stdout, &stderr, fixtures), stderr.String())
	assert.Contains(t, stdout.String(), "definitions of Kubernetes 1.0.0 written")
	stdout.Reset()
	assert.Equal(t, 0, run(append(args, "-check"), &stdout, &stderr, fixtures), stderr.String())
	assert.Contains(t, stdout.String(), "up to date with Kubernetes 1.0.0")
	assert.Equal(t, 2, run([]string{"-values-schema", file, "-kubernetes", "1.0.0,2.0.0"}, &stdout, &stderr, fixtures))
}
