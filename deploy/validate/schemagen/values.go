package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// kubernetesPrefix starts the names of the Kubernetes schemas a chart's
// values schema references (#/definitions/io.k8s.api.core.v1.Toleration).
const kubernetesPrefix = "io.k8s."

// UpdateValuesSchema returns the values schema doc (a chart's
// values.schema.json, hand-written) with its "definitions" replaced by the
// strict schemas of defs it references as #/definitions/io.k8s..., and
// those they reference: the Kubernetes objects a chart passes through
// (securityContext, affinity, tolerations...) then refuse an unknown or
// mistyped field at helm install, as the rest of the values do. The
// document keeps its key order and is indented by two spaces; only
// "definitions" is generated.
func UpdateValuesSchema(doc []byte, defs *Definitions) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, fmt.Errorf("values schema: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("values schema: more after the document")
	}
	root, ok := v.(*ordered)
	if !ok {
		return nil, errors.New("values schema: not an object")
	}
	root.delete("definitions")
	refs := map[string]bool{}
	collectRefs(root, refs)
	var names []string
	for name := range refs {
		if !strings.HasPrefix(name, kubernetesPrefix) {
			return nil, fmt.Errorf("values schema: #/definitions/%s is not a Kubernetes schema (only those are generated)", name)
		}
		names = append(names, name)
	}
	if len(names) > 0 {
		closure, err := defs.closure(names...)
		if err != nil {
			return nil, fmt.Errorf("values schema: %w", err)
		}
		root.set("definitions", closure)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// collectRefs adds the names of every #/definitions/NAME reference in v.
func collectRefs(v any, refs map[string]bool) {
	switch v := v.(type) {
	case *ordered:
		for _, k := range v.keys {
			if s, ok := v.vals[k].(string); ok && k == "$ref" && strings.HasPrefix(s, definitionsPrefix) {
				refs[strings.TrimPrefix(s, definitionsPrefix)] = true
			}
			collectRefs(v.vals[k], refs)
		}
	case []any:
		for _, e := range v {
			collectRefs(e, refs)
		}
	}
}

// ordered is a JSON object that keeps its keys' order, so a hand-written
// document comes back as it was written.
type ordered struct {
	keys []string
	vals map[string]any
}

func (o *ordered) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *ordered) delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}

// MarshalJSON writes the keys in their order.
func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		var val bytes.Buffer
		enc := json.NewEncoder(&val)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(o.vals[k]); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(val.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeOrdered reads one JSON value, objects as *ordered and numbers as
// json.Number (written back as they were).
func decodeOrdered(dec *json.Decoder) (any, error) {
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &ordered{vals: map[string]any{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("object key %v", k)
			}
			if _, dup := o.vals[key]; dup {
				return nil, fmt.Errorf("key %q repeated", key)
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.set(key, v)
		}
		_, err := dec.Token() // }
		return o, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token() // ]
		return list, err
	case json.Delim('}'), json.Delim(']'):
		return nil, fmt.Errorf("unexpected %v", tok)
	}
	return tok, nil
}
