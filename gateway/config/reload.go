package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Values of the `reload` struct tag. A config field tagged
// reload:"restart" is read once, at start: a reload that changes it is
// warned about and it keeps its start value until the next restart.
// reload:"yes" marks a field that a reload applies. A field without the
// tag is as its parent: every section of Config says which it is, and a
// field inside a restart section that reloads says reload:"yes".
const (
	ReloadYes     = "yes"
	ReloadRestart = "restart"
)

// reloadMode is f's mode, given its parent's.
func reloadMode(f reflect.StructField, parent string) string {
	if m := f.Tag.Get("reload"); m != "" {
		return m
	}
	return parent
}

// Reloads reports whether a reload applies a change of the key at path, a
// concrete key path ("upstreams.accounts.timeout", "routes[2].kind") or
// one as Keys writes it ("upstreams.<name>.timeout"). false for a key that
// needs a restart or that does not exist.
func Reloads(path string) bool {
	p := NormalPath(path)
	for _, k := range Keys() {
		if k.Path == p {
			return k.Reload
		}
	}
	return false
}

// splitPath splits "a.b[0].c" into its keys, "0" included.
func splitPath(path string) []string {
	return strings.FieldsFunc(path, func(r rune) bool { return r == '.' || r == '[' || r == ']' })
}

// RestartChanges lists, by key path and in declaration order, every key
// that needs a restart whose value differs between the configuration the
// process started with and next: what a reload of next cannot apply.
func RestartChanges(started, next *Config) []string {
	var changed []string
	walkRestart(reflect.ValueOf(started).Elem(), reflect.ValueOf(next).Elem(), "", ReloadYes,
		func(path string, a, b reflect.Value) { changed = diffLeaves(path, a, b, changed) })
	return changed
}

// diffLeaves appends the paths of the keys under path whose values differ
// between a and b: the fields of a mapping one by one, the entries of a map
// of mappings by name.
func diffLeaves(path string, a, b reflect.Value, out []string) []string {
	t := a.Type()
	switch {
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if name, ok := yamlName(t.Field(i)); ok {
				out = diffLeaves(join(path, name), a.Field(i), b.Field(i), out)
			}
		}
		return out
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Struct:
		keys := map[string]reflect.Value{}
		for _, k := range append(a.MapKeys(), b.MapKeys()...) {
			keys[fmt.Sprint(k.Interface())] = k
		}
		for _, name := range sortedNames(keys) {
			av, bv := a.MapIndex(keys[name]), b.MapIndex(keys[name])
			if !av.IsValid() || !bv.IsValid() {
				out = append(out, join(path, name))
				continue
			}
			out = diffLeaves(join(path, name), av, bv, out)
		}
		return out
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		out = append(out, path)
	}
	return out
}

func sortedNames(m map[string]reflect.Value) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// KeepRestart sets every key of next that needs a restart to its value in
// started, so that the configuration a reload applies is the one in effect:
// a key that needs a restart keeps its start value until the restart,
// whatever reads it.
func KeepRestart(next, started *Config) {
	walkRestart(reflect.ValueOf(started).Elem(), reflect.ValueOf(next).Elem(), "", ReloadYes,
		func(_ string, a, b reflect.Value) { b.Set(a) })
}

// walkRestart calls fn with each outermost value of b under a restart tag
// and its counterpart in a (same type; b settable). Maps and lists of
// structs are walked by the keys and indexes both have, so that a restart
// field of an upstream or a route is found too.
func walkRestart(a, b reflect.Value, path, mode string, fn func(path string, a, b reflect.Value)) {
	t := b.Type()
	if mode == ReloadRestart && !hasMode(t, mode, ReloadYes) {
		fn(orRoot(path), a, b)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := yamlName(f)
			if !ok || !hasMode(f.Type, reloadMode(f, mode), ReloadRestart) {
				continue
			}
			walkRestart(a.Field(i), b.Field(i), join(path, name), reloadMode(f, mode), fn)
		}
	case reflect.Map:
		if !hasMode(t.Elem(), mode, ReloadRestart) {
			return
		}
		for _, k := range b.MapKeys() {
			av := a.MapIndex(k)
			if !av.IsValid() {
				continue // new: nothing started with it
			}
			bv := reflect.New(t.Elem()).Elem()
			bv.Set(b.MapIndex(k))
			walkRestart(av, bv, join(path, fmt.Sprint(k.Interface())), mode, fn)
			b.SetMapIndex(k, bv)
		}
	case reflect.Slice:
		if !hasMode(t.Elem(), mode, ReloadRestart) {
			return
		}
		for i := range min(a.Len(), b.Len()) {
			walkRestart(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), mode, fn)
		}
	}
}

// hasMode reports whether a value of t in mode has a key in mode want.
func hasMode(t reflect.Type, mode, want string) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == durationType {
			return mode == want
		}
		for i := range t.NumField() {
			if _, ok := yamlName(t.Field(i)); ok && hasMode(t.Field(i).Type, reloadMode(t.Field(i), mode), want) {
				return true
			}
		}
		return false
	case reflect.Map, reflect.Slice:
		if t.Elem().Kind() == reflect.Struct || t.Elem().Kind() == reflect.Map || t.Elem().Kind() == reflect.Slice {
			return mode == want || hasMode(t.Elem(), mode, want)
		}
	}
	return mode == want
}
