package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// objectMeta is the schema of every object's metadata; a CRD's own schema
// says only "type: object" for it, so the generator puts this one in.
const objectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// draft04 is the dialect of the written schemas: OpenAPI v3.0's schema
// object is draft-04's (exclusiveMinimum a boolean, no const), and it is
// what kubeconform compiles a schema in when it names none.
const draft04 = "http://json-schema.org/draft-04/schema#"

// GVK is a group, version and kind, as x-kubernetes-group-version-kind and
// a CRD's spec name them.
type GVK struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// APIVersion is the apiVersion a manifest of this kind carries.
func (g GVK) APIVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// FileName is the file kubeconform looks for the kind's schema in, under a
// version directory: its -schema-location template
// {{.ResourceKind}}{{.KindSuffix}}.json, where the suffix is the group's
// first label and the version ("deployment-apps-v1.json",
// "service-v1.json", "httproute-gateway-v1.json").
func (g GVK) FileName() string {
	name := strings.ToLower(g.Kind)
	if g.Group == "" {
		return name + "-" + strings.ToLower(g.Version) + ".json"
	}
	first, _, _ := strings.Cut(g.Group, ".")
	return name + "-" + strings.ToLower(first) + "-" + strings.ToLower(g.Version) + ".json"
}

// Definitions are the strict schemas of one Kubernetes version's OpenAPI
// document, by name, each with the names it references.
type Definitions struct {
	schemas map[string]map[string]any
	refs    map[string][]string
	gvks    map[string][]GVK
}

// openAPIDocument is the part of an OpenAPI v3 document the generator reads.
type openAPIDocument struct {
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

// LoadDefinitions reads every *.json OpenAPI v3 document in dir (the
// api/openapi-spec/v3 directory of k8s.io/kubernetes: one document per
// group version, each with the schemas it references) and converts each
// schema once.
func LoadDefinitions(dir string) (*Definitions, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no OpenAPI documents (*.json)", dir)
	}
	sort.Strings(files)
	d := &Definitions{schemas: map[string]map[string]any{}, refs: map[string][]string{}, gvks: map[string][]GVK{}}
	for _, f := range files {
		if err := d.add(f); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return d, nil
}

func (d *Definitions) add(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var doc openAPIDocument
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	for name, raw := range doc.Components.Schemas {
		if _, done := d.schemas[name]; done {
			continue // every document repeats the schemas it references
		}
		var schema map[string]any
		if err := json.Unmarshal(raw, &schema); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		var meta struct {
			GVKs []GVK `json:"x-kubernetes-group-version-kind"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		refs := map[string]bool{}
		converted, err := strictSchema(schema, refs)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d.schemas[name] = converted.(map[string]any)
		d.refs[name] = sortedKeys(refs)
		d.gvks[name] = meta.GVKs
	}
	return nil
}

// closure returns the schemas the named ones reference, directly or not,
// by name, the named ones included.
func (d *Definitions) closure(names ...string) (map[string]any, error) {
	out := map[string]any{}
	for len(names) > 0 {
		name := names[len(names)-1]
		names = names[:len(names)-1]
		if _, done := out[name]; done {
			continue
		}
		s, ok := d.schemas[name]
		if !ok {
			return nil, fmt.Errorf("reference to %s, which the document does not define", name)
		}
		out[name] = s
		names = append(names, d.refs[name]...)
	}
	return out, nil
}

// Standalone is one kind's schema with every schema it references under
// "definitions": a file kubeconform reads with nothing else.
type Standalone struct {
	GVK    GVK
	Schema map[string]any
}

// Kinds returns the standalone schema of every kind the document defines
// (every group version kind of every schema with
// x-kubernetes-group-version-kind), sorted by file name. Two schemas
// claiming one kind is an error.
func (d *Definitions) Kinds() ([]Standalone, error) {
	owner := map[GVK]string{}
	for _, name := range sortedKeys(d.gvks) {
		for _, gvk := range d.gvks[name] {
			if other, dup := owner[gvk]; dup && other != name {
				return nil, fmt.Errorf("%s and %s both claim %s %s", other, name, gvk.APIVersion(), gvk.Kind)
			}
			owner[gvk] = name
		}
	}
	var out []Standalone
	for gvk, name := range owner {
		defs, err := d.closure(d.refs[name]...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, Standalone{GVK: gvk, Schema: root(d.schemas[name], gvk, defs)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GVK.FileName() < out[j].GVK.FileName() })
	return out, nil
}

// root makes schema the top of a standalone file for gvk: apiVersion and
// kind pinned to the kind's, defs under "definitions". schema itself is
// not modified (it may be another kind's definition too).
func root(schema map[string]any, gvk GVK, defs map[string]any) map[string]any {
	out := make(map[string]any, len(schema)+2)
	for k, v := range schema {
		out[k] = v
	}
	props := map[string]any{}
	if p, ok := schema["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	props["apiVersion"] = map[string]any{"type": "string", "enum": []any{gvk.APIVersion()}}
	props["kind"] = map[string]any{"type": "string", "enum": []any{gvk.Kind}}
	out["properties"] = props
	out["$schema"] = draft04
	if len(defs) > 0 {
		out["definitions"] = defs
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
