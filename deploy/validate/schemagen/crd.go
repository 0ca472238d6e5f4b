package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// crd is the part of a CustomResourceDefinition (apiextensions.k8s.io/v1)
// the generator reads.
type crd struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind string `json:"kind"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
			Schema struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// CRDKinds returns the standalone schema of every served version of every
// CustomResourceDefinition in the YAML stream data (documents of other
// kinds are skipped). metadata is checked as the API server checks it, by
// the ObjectMeta of defs, where the CRD itself says only "type: object".
func CRDKinds(data []byte, defs *Definitions) ([]Standalone, error) {
	meta, err := defs.closure(objectMeta)
	if err != nil {
		return nil, err
	}
	var out []Standalone
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for n := 1; ; n++ {
		var c crd
		if err := dec.Decode(&c); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if c.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range c.Spec.Versions {
			if !v.Served {
				continue
			}
			gvk := GVK{Group: c.Spec.Group, Version: v.Name, Kind: c.Spec.Names.Kind}
			if v.Schema.OpenAPIV3Schema == nil {
				return nil, fmt.Errorf("%s %s: no openAPIV3Schema", gvk.APIVersion(), gvk.Kind)
			}
			converted, err := strictSchema(v.Schema.OpenAPIV3Schema, map[string]bool{})
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", gvk.APIVersion(), gvk.Kind, err)
			}
			schema := converted.(map[string]any)
			props, _ := schema["properties"].(map[string]any)
			withMeta := make(map[string]any, len(props))
			for k, p := range props {
				withMeta[k] = p
			}
			withMeta["metadata"] = map[string]any{"$ref": definitionsPrefix + objectMeta}
			schema["properties"] = withMeta
			out = append(out, Standalone{GVK: gvk, Schema: root(schema, gvk, meta)})
		}
	}
	return out, nil
}
