package reference

import (
	"reflect"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/config"
)

// defaults is a configuration holding every default: a Config with one
// element in each map and list of mappings, filled by config.Defaults, then
// by the WithDefaults method of every value whose type has one (an
// upstream's Settings).
type defaults struct{ probe reflect.Value }

func defaultsOf() defaults {
	var cfg config.Config
	fill(reflect.ValueOf(&cfg).Elem())
	config.Defaults(&cfg)
	v := reflect.ValueOf(&cfg).Elem()
	withDefaults(v)
	return defaults{probe: v}
}

// fill puts one zero element in every map and list of mappings under v.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Map:
		if isMapping(v.Type().Elem()) {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e)
			v.Set(reflect.MakeMap(v.Type()))
			v.SetMapIndex(reflect.ValueOf(probeKey), e)
		}
	case reflect.Slice:
		if isMapping(v.Type().Elem()) {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e)
			v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), e))
		}
	}
}

// probeKey names the one element of each map.
const probeKey = "<name>"

func isMapping(t reflect.Type) bool { return t.Kind() == reflect.Struct }

// withDefaults replaces every value under v whose type has a
// WithDefaults() T method by what it returns.
func withDefaults(v reflect.Value) {
	if m := v.MethodByName("WithDefaults"); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 1 && m.Type().Out(0) == v.Type() && v.CanSet() {
		v.Set(m.Call(nil)[0])
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				withDefaults(v.Field(i))
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			withDefaults(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Slice:
		for i := range v.Len() {
			withDefaults(v.Index(i))
		}
	}
}

// of is k's default as written in config.yaml and as a plain value for the
// schema. A `default` tag on the field, or a `defaults` tag
// ("key=value; key=value") on a section above it, says what the probe
// cannot: a default that depends on another key, or that a section sets
// differently from its type's WithDefaults.
func (d defaults) of(k config.Key) (string, any) {
	if text, ok := sectionDefault(k.Path); ok {
		return text, nil
	}
	if text, ok := k.Field.Tag.Lookup("default"); ok {
		return text, nil
	}
	v, ok := d.lookup(k.Path)
	if !ok || v.IsZero() {
		return "", nil
	}
	text := formatValue(v)
	if isDuration(v.Type()) {
		return text, text
	}
	switch v.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return text, v.Interface()
	}
	return text, nil
}

func isDuration(t reflect.Type) bool { return t == reflect.TypeFor[time.Duration]() }

// lookup finds the value of a key path (Keys' form) in the probe.
func (d defaults) lookup(path string) (reflect.Value, bool) {
	v := d.probe
	for _, part := range strings.Split(strings.ReplaceAll(path, "[]", ".[]"), ".") {
		switch {
		case part == "[]":
			if v.Kind() != reflect.Slice || v.Len() == 0 {
				return reflect.Value{}, false
			}
			v = v.Index(0)
		case part == probeKey:
			if v.Kind() != reflect.Map {
				return reflect.Value{}, false
			}
			v = v.MapIndex(reflect.ValueOf(probeKey))
		default:
			f, ok := fieldByKey(v.Type(), part)
			if !ok {
				return reflect.Value{}, false
			}
			v = v.FieldByIndex(f.Index)
		}
		if !v.IsValid() {
			return reflect.Value{}, false
		}
	}
	return v, true
}

// sectionDefault reads the `defaults` tag of the sections above path.
func sectionDefault(path string) (string, bool) {
	for _, k := range config.Keys() {
		spec, ok := k.Field.Tag.Lookup("defaults")
		if !ok || !strings.HasPrefix(path, k.Path+".") {
			continue
		}
		rel := strings.TrimPrefix(path, k.Path+".")
		for item := range strings.SplitSeq(spec, ";") {
			key, val, _ := strings.Cut(item, "=")
			if strings.TrimSpace(key) == rel {
				return strings.TrimSpace(val), true
			}
		}
	}
	return "", false
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
