package main

import (
	"fmt"
	"strings"
)

// componentsPrefix starts every reference between the schemas of a
// Kubernetes OpenAPI v3 document; definitionsPrefix replaces it in a
// standalone schema, which carries the schemas it needs under "definitions".
const (
	componentsPrefix  = "#/components/schemas/"
	definitionsPrefix = "#/definitions/"
)

// schemaMaps names the keywords whose value maps names to subschemas, and
// schemaLists those whose value is a list of subschemas: the walk must
// convert those subschemas but keep their names, which may be anything
// ("description", "default", "$ref" are property names in CRD schemas).
var (
	schemaMaps  = map[string]bool{"properties": true, "patternProperties": true, "definitions": true}
	schemaLists = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true}
)

// dropped names keywords that never change what validates: prose, defaults,
// examples and Kubernetes' extensions (list and map semantics, CEL rules the
// API server runs and a schema validator cannot). The extensions that do
// change validation are read before they are dropped (see strictSchema).
func dropped(keyword string) bool {
	switch keyword {
	case "description", "default", "example", "externalDocs", "title", "nullable":
		return true
	}
	return strings.HasPrefix(keyword, "x-")
}

// strictSchema converts one OpenAPI v3.0 schema (Kubernetes' dialect, as in
// the API server's published documents and in CRDs) into a JSON schema
// (draft-04, the dialect kubeconform compiles) that is strict the way the
// API server's strict field validation is: an object with declared
// properties refuses any other (additionalProperties: false) unless it
// preserves unknown fields, and null is refused wherever the document does
// not say nullable. References to #/components/schemas/NAME become
// #/definitions/NAME and NAME is added to refs.
func strictSchema(node any, refs map[string]bool) (any, error) {
	m, ok := node.(map[string]any)
	if !ok {
		// A boolean schema (additionalProperties: true) or a keyword value.
		return node, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if dropped(k) {
			continue
		}
		switch {
		case k == "$ref":
			ref, ok := v.(string)
			if !ok || !strings.HasPrefix(ref, componentsPrefix) {
				return nil, fmt.Errorf("reference %v: only %s... is understood", v, componentsPrefix)
			}
			name := strings.TrimPrefix(ref, componentsPrefix)
			refs[name] = true
			out[k] = definitionsPrefix + name
		case schemaMaps[k]:
			sub, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s is not an object", k)
			}
			converted := make(map[string]any, len(sub))
			for name, s := range sub {
				c, err := strictSchema(s, refs)
				if err != nil {
					return nil, fmt.Errorf("%s/%s: %w", k, name, err)
				}
				converted[name] = c
			}
			out[k] = converted
		case schemaLists[k]:
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s is not a list", k)
			}
			converted := make([]any, len(list))
			for i, s := range list {
				c, err := strictSchema(s, refs)
				if err != nil {
					return nil, fmt.Errorf("%s/%d: %w", k, i, err)
				}
				converted[i] = c
			}
			out[k] = converted
		case k == "items" || k == "additionalProperties" || k == "not":
			c, err := strictSchema(v, refs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = c
		default:
			out[k] = v
		}
	}
	preserve := m["x-kubernetes-preserve-unknown-fields"] == true
	if _, has := m["properties"]; has && !preserve {
		if _, set := m["additionalProperties"]; !set {
			out["additionalProperties"] = false
		}
	}
	// int-or-string in a CRD: the API server accepts both whatever the
	// schema's anyOf says; say it when the CRD does not.
	if m["x-kubernetes-int-or-string"] == true && m["anyOf"] == nil && m["oneOf"] == nil && m["type"] == nil {
		out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	}
	if m["nullable"] == true {
		if t, ok := m["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
	}
	return out, nil
}
