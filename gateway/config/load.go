package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads, expands and strictly decodes the file at path, then fills
// defaults. It does not validate: call Validate on the result. getenv looks
// variables up (os.Getenv in production, a map in tests).
func Load(path string, getenv func(string) string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	cfg, err := Parse(data, getenv)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse is Load on bytes. Every unknown key and every undefined variable
// without a default is reported, each with its key path, joined in one error.
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parsing YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("config is empty")
	}
	root := doc.Content[0]
	var problems []error
	expandNode(root, "", getenv, &problems)
	checkKeys(root, reflect.TypeFor[Config](), "", &problems)
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	var cfg Config
	if err := root.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	Defaults(&cfg)
	return &cfg, nil
}

// expandNode replaces ${VAR} and ${VAR:-default} in every scalar. A scalar
// written plain is re-resolved after expansion, so "${PORT}" can fill an int.
func expandNode(n *yaml.Node, path string, getenv func(string) string, problems *[]error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return
		}
		v, err := Expand(n.Value, getenv)
		if err != nil {
			*problems = append(*problems, fmt.Errorf("%s: %w", orRoot(path), err))
			return
		}
		n.Value = v
		if n.Style == 0 {
			n.Tag = resolveTag(v)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			expandNode(n.Content[i+1], join(path, n.Content[i].Value), getenv, problems)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			expandNode(c, fmt.Sprintf("%s[%d]", path, i), getenv, problems)
		}
	case yaml.DocumentNode, yaml.AliasNode:
		for _, c := range n.Content {
			expandNode(c, path, getenv, problems)
		}
	}
}

// resolveTag gives an expanded plain scalar the tag YAML would give it had it
// been written literally.
func resolveTag(v string) string {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(v), &n); err != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml.ScalarNode {
		return "!!str"
	}
	return n.Content[0].Tag
}

// Expand substitutes ${VAR} and ${VAR:-default} in s. An unset or empty
// variable without a default expands to "" (so optional secrets may be
// absent); "$$" is a literal "$".
func Expand(s string, getenv func(string) string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		if s[i+1] == '$' {
			b.WriteByte('$')
			i++
			continue
		}
		if s[i+1] != '{' {
			b.WriteByte('$')
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s)
		}
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validVarName(name) {
			return "", fmt.Errorf("invalid variable name %q", name)
		}
		v := getenv(name)
		if v == "" && hasDef {
			v = def
		}
		b.WriteString(v)
		i += end
	}
	return b.String(), nil
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// checkKeys walks the YAML tree beside the Go type and reports every key the
// type does not have, with its path and line.
func checkKeys(n *yaml.Node, t reflect.Type, path string, problems *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			ft, ok := fields[key]
			if !ok {
				*problems = append(*problems, fmt.Errorf("%s: unknown key (line %d)", join(path, key), n.Content[i].Line))
				continue
			}
			checkKeys(n.Content[i+1], ft, join(path, key), problems)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkKeys(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), problems)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, c := range n.Content {
			checkKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), problems)
		}
	}
}

func yamlFields(t reflect.Type) map[string]reflect.Type {
	m := make(map[string]reflect.Type, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		m[name] = f.Type
	}
	return m
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}
