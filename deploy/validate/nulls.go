package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// ErrNull is wrapped (in a *DocumentError) for every null value in a
// document: a key with nothing under it, "~" or "null". The Go API types
// read null as an empty value, so decoding cannot see it, but the API
// server's schemas refuse it where a map or list is wanted (kubeconform:
// "got null, want object") and GitOps tools show it as a permanent diff.
var ErrNull = errors.New("null value")

// CheckNulls reports every null value of every document, by its JSON
// pointer (/spec/template/metadata/annotations), reading the YAML as
// plain data: independent of the API types.
func CheckNulls(docs []Document) error {
	var errs []error
	for _, doc := range docs {
		j, err := yaml.YAMLToJSON(doc.Body)
		if err != nil {
			errs = append(errs, &DocumentError{Source: doc.Source, Err: fmt.Errorf("not YAML: %w", err)})
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(j))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			errs = append(errs, &DocumentError{Source: doc.Source, Err: err})
			continue
		}
		for _, p := range nullPaths(v, "") {
			errs = append(errs, &DocumentError{Source: doc.Source, Err: fmt.Errorf("%w at %s", ErrNull, p)})
		}
	}
	return errors.Join(errs...)
}

// nullPaths returns the JSON pointers of the nulls in v, in key order.
func nullPaths(v any, at string) []string {
	switch v := v.(type) {
	case nil:
		if at == "" {
			return []string{"(the whole document)"}
		}
		return []string{at}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			out = append(out, nullPaths(v[k], at+"/"+escapePointer(k))...)
		}
		return out
	case []any:
		var out []string
		for i, e := range v {
			out = append(out, nullPaths(e, at+"/"+strconv.Itoa(i))...)
		}
		return out
	}
	return nil
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
