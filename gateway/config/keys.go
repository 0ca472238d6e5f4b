package config

import (
	"reflect"
	"strings"
)

// Key is one key of config.yaml, as the reference lists it.
type Key struct {
	// Path is the key path, with <name> for a map's key and [] for a list's
	// element: "server.listen", "upstreams.<name>.retry.attempts",
	// "routes[].kind".
	Path string
	// Type is the Go type the value decodes into.
	Type reflect.Type
	// Field is the struct field the key is, with its tags; its doc comment
	// is in the source of Owner's package.
	Field reflect.StructField
	// Owner is the struct type Field belongs to.
	Owner reflect.Type
	// Section is set for a key whose value is a mapping of keys (a struct),
	// listed before its own keys.
	Section bool
	// Reload is set when a reload applies a change of the key; otherwise it
	// needs a restart (the reload tag, inherited).
	Reload bool
}

// Keys lists every key of Config in declaration order, each section
// before its keys. A map or list of mappings (upstreams, routes) lists the
// keys of one element.
func Keys() []Key {
	var out []Key
	walkKeys(reflect.TypeFor[Config](), "", ReloadYes, &out)
	return out
}

func walkKeys(t reflect.Type, path, mode string, out *[]Key) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := yamlName(f)
		if !ok {
			continue
		}
		m := reloadMode(f, mode)
		p := join(path, name)
		elem, suffix := containerOf(f.Type)
		k := Key{Path: p, Type: f.Type, Field: f, Owner: t, Reload: m == ReloadYes, Section: elem != nil}
		*out = append(*out, k)
		if elem != nil {
			walkKeys(elem, p+suffix, m, out)
		}
	}
}

// containerOf returns the struct type whose keys sit under a key of type t,
// and what the path takes to reach them ("", ".<name>" or "[]"); nil for a
// key holding a plain value.
func containerOf(t reflect.Type) (reflect.Type, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && t != durationType:
		return t, ""
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Struct:
		return t.Elem(), ".<name>"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		return t.Elem(), "[]"
	}
	return nil, ""
}

// NormalPath writes a concrete key path in Keys' form:
// "upstreams.accounts.retry.attempts" becomes
// "upstreams.<name>.retry.attempts" and "routes[3].kind" "routes[].kind".
func NormalPath(path string) string {
	keys := splitPath(path)
	var b strings.Builder
	t := reflect.TypeFor[Config]()
	for i := 0; i < len(keys); i++ {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			break
		}
		ft, ok := yamlFields(t)[keys[i]]
		if !ok {
			return path
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(keys[i])
		elem, suffix := containerOf(ft)
		t = ft
		if elem != nil && suffix != "" && i+1 < len(keys) {
			b.WriteString(suffix)
			t = elem
			// a map's key or a list's index; "routes[].kind" has none
			if i+1 < len(keys) && (suffix == ".<name>" || strings.Trim(keys[i+1], "0123456789") == "") {
				i++
			}
		}
	}
	return b.String()
}
