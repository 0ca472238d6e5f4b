package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

var durationType = reflect.TypeFor[time.Duration]()

// checker walks the YAML tree beside the Go type it decodes into and
// reports, each with its key path and line, every key the type does not
// have, every key given twice and every value of the wrong type. A refused
// value is replaced by null, so that the tree then decodes with that key at
// its default and every later check still runs.
type checker struct {
	problems []Problem
	// lines maps every key path present in the file to its line.
	lines map[string]int
	// vars maps a key path to the variables its value names.
	vars map[string][]string
}

func (c *checker) add(path string, line int, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, Line: line, Message: fmt.Sprintf(format, args...)})
}

// refuse reports n's value and nulls it.
func (c *checker) refuse(n *yaml.Node, path, format string, args ...any) {
	c.add(path, n.Line, format, args...)
	*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
}

func (c *checker) check(n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // the key's default
	}
	if t == durationType {
		c.duration(n, path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			c.refuse(n, path, "must be a mapping of keys (%s), not %s", strings.Join(keysOf(t), ", "), describe(n))
			return
		}
		fields := yamlFields(t)
		c.mapping(n, path, func(key string, kn, vn *yaml.Node) bool {
			ft, ok := fields[key]
			if !ok {
				names := keysOf(t)
				if hint := DidYouMean(key, names); hint != "" {
					c.add(join(path, key), kn.Line, "unknown key%s", hint)
				} else {
					c.add(join(path, key), kn.Line, "unknown key; %s takes %s", orRoot(path), strings.Join(names, ", "))
				}
				return false
			}
			c.check(vn, ft, join(path, key))
			return true
		})
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.refuse(n, path, "must be a %s, not %s", TypeName(t), describe(n))
			return
		}
		c.mapping(n, path, func(key string, _, vn *yaml.Node) bool {
			c.check(vn, t.Elem(), join(path, key))
			return true
		})
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			c.refuse(n, path, "must be a %s, not %s", TypeName(t), describe(n))
			return
		}
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			c.lines[p] = item.Line
			c.check(item, t.Elem(), p)
		}
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		c.number(n, t, path)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			c.refuse(n, path, "must be a string, not %s", describe(n))
		}
	}
}

// mapping walks the entries of a mapping node, records their lines, reports
// keys given twice, and removes the entries visit refuses.
func (c *checker) mapping(n *yaml.Node, path string, visit func(key string, kn, vn *yaml.Node) bool) {
	first := map[string]int{}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := n.Content[i], n.Content[i+1]
		key := kn.Value
		p := join(path, key)
		if line, dup := first[key]; dup {
			c.add(p, kn.Line, "given twice (first on line %d)", line)
			continue
		}
		first[key] = kn.Line
		c.lines[p] = kn.Line
		if visit(key, kn, vn) {
			kept = append(kept, kn, vn)
		}
	}
	n.Content = kept
}

func (c *checker) duration(n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		c.refuse(n, path, "must be a duration such as 250ms, 30s or 5m, not %s", describe(n))
		return
	}
	if _, err := time.ParseDuration(n.Value); err == nil {
		return
	}
	if _, err := strconv.ParseFloat(n.Value, 64); err == nil {
		c.refuse(n, path, "%s has no unit: write it as %ss, %sms or %sm (units: ns, us, ms, s, m, h)", n.Value, n.Value, n.Value, n.Value)
		return
	}
	c.refuse(n, path, "%q is not a duration: write a number with a unit, such as 250ms, 30s, 5m or 1h30m", n.Value)
}

// number checks booleans, integers and floats by decoding the node into the
// field's type; a fraction given for an integer is refused, not truncated.
func (c *checker) number(n *yaml.Node, t reflect.Type, path string) {
	name := TypeName(t)
	if n.Kind != yaml.ScalarNode {
		c.refuse(n, path, "must be %s, not %s", article(name), describe(n))
		return
	}
	isInt := t.Kind() != reflect.Bool && t.Kind() != reflect.Float32 && t.Kind() != reflect.Float64
	if isInt && n.Tag == "!!float" {
		if _, err := strconv.ParseFloat(n.Value, 64); err == nil {
			c.refuse(n, path, "must be a whole number, not %s", n.Value)
			return
		}
	}
	if err := n.Decode(reflect.New(t).Interface()); err == nil {
		return
	}
	switch {
	case t.Kind() == reflect.Bool:
		c.refuse(n, path, "must be true or false, not %q", n.Value)
	case isInt && (n.Tag == "!!int" || n.Tag == "!!float"):
		if strings.HasPrefix(n.Value, "-") && t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64 {
			c.refuse(n, path, "must not be negative, not %s", n.Value)
		} else {
			c.refuse(n, path, "%s is out of range for %s", n.Value, name)
		}
	default:
		c.refuse(n, path, "must be %s, not %q", article(name), n.Value)
	}
}

// TypeName names a config value's Go type as the reference and the problems
// say it: duration, boolean, integer, number, string, list of ..., map of
// ..., mapping.
func TypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == durationType {
		return "duration"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer (not negative)"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list of " + plural(TypeName(t.Elem()))
	case reflect.Map:
		return "map of " + plural(TypeName(t.Elem()))
	case reflect.Struct:
		return "mapping"
	}
	return t.String()
}

func plural(name string) string {
	if rest, ok := strings.CutPrefix(name, "integer"); ok {
		return "integers" + rest
	}
	if strings.HasPrefix(name, "list of") || strings.HasPrefix(name, "map of") {
		return name
	}
	return name + "s"
}

func article(name string) string {
	if strings.HasPrefix(name, "integer") {
		return "an " + name
	}
	return "a " + name
}

// describe names what a node is, for "must be X, not Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// keysOf lists the keys of a config struct in declaration order.
func keysOf(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if name, ok := yamlName(t.Field(i)); ok {
			names = append(names, name)
		}
	}
	return names
}

// yamlName is a field's key, false for a field that is not decoded.
func yamlName(f reflect.StructField) (string, bool) {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" || !f.IsExported() {
		return "", false
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, true
}

func yamlFields(t reflect.Type) map[string]reflect.Type {
	m := make(map[string]reflect.Type, t.NumField())
	for i := range t.NumField() {
		if name, ok := yamlName(t.Field(i)); ok {
			m[name] = t.Field(i).Type
		}
	}
	return m
}
