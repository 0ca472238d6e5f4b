// Package reference generates the configuration reference from the config
// types themselves: docs/reference/configuration.md (every key with its
// type, default, environment variable and whether a reload applies it),
// docs/reference/config.schema.json (a JSON Schema of config.yaml for
// editors) and the generated list of docs/operations/reload.md. It reads
// config.Keys (yaml names and reload tags), the defaults config.Defaults and
// each type's WithDefaults set, the doc comments in the Go source, and the
// ${VAR}s of the shipped config.yaml. cmd/configdoc writes the files; a
// test fails when they are not current.
package reference

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/config"
)

// Files the generator writes, relative to the module root.
const (
	SchemaFile    = "docs/reference/config.schema.json"
	ReferenceFile = "docs/reference/configuration.md"
	ReloadFile    = "docs/operations/reload.md"
	// ShippedConfig is the file whose ${VAR}s the reference lists.
	ShippedConfig = "config.yaml"
	// Command regenerates the files.
	Command = "go run ./cmd/configdoc"
)

// Entry is one key with everything the reference says of it.
type Entry struct {
	config.Key
	// Doc is the field's doc comment, as one paragraph.
	Doc string
	// Default is the default as written in config.yaml, "" when the key
	// has none (empty, zero, absent).
	Default string
	// defaultValue is the default for the schema, nil when there is none
	// or it is not a plain value.
	defaultValue any
	// Env lists the shipped config's variables for the key.
	Env []EnvVar
}

// EnvVar is a variable the shipped config.yaml reads a key from.
type EnvVar struct {
	// Path is the concrete key ("upstreams.accounts.url").
	Path string
	Name string
}

// Entries gathers the reference of every key. root is the module root.
func Entries(root string) ([]Entry, error) {
	docs, err := readDocs(root)
	if err != nil {
		return nil, err
	}
	shipped, err := os.ReadFile(filepath.Join(root, ShippedConfig))
	if err != nil {
		return nil, err
	}
	env, err := envVars(shipped)
	if err != nil {
		return nil, err
	}
	defaults := defaultsOf()
	var out []Entry
	for _, k := range config.Keys() {
		e := Entry{Key: k, Doc: keyDoc(docs.field(k.Owner, k.Field.Name), k), Env: env[k.Path]}
		if !k.Section {
			e.Default, e.defaultValue = defaults.of(k)
		}
		out = append(out, e)
	}
	return out, nil
}

// ModuleRoot finds the directory of go.mod at or above dir.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above %s", dir)
		}
		dir = parent
	}
}

// formatValue writes a default as config.yaml would: durations as 30s or
// 1m30s, lists as [a, b].
func formatValue(v reflect.Value) string {
	if v.Type() == reflect.TypeFor[time.Duration]() {
		return formatDuration(time.Duration(v.Int()))
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		return formatValue(v.Elem())
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = formatValue(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v.Interface())
}

func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Generate returns the content of every generated file, by path relative
// to root, the module root: the schema, the reference, and reload.md with
// its generated part replaced.
func Generate(root string) (map[string][]byte, error) {
	entries, err := Entries(root)
	if err != nil {
		return nil, err
	}
	schema, err := Schema(entries)
	if err != nil {
		return nil, err
	}
	reloadDoc, err := os.ReadFile(filepath.Join(root, ReloadFile))
	if err != nil {
		return nil, err
	}
	reloadDoc, err = ReloadSection(reloadDoc, entries)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{SchemaFile: schema, ReferenceFile: Markdown(entries), ReloadFile: reloadDoc}, nil
}

// keyDoc writes a doc comment for the reader of config.yaml: the Go name it
// starts with becomes the key ("Listen is" becomes "`listen` is").
func keyDoc(doc string, k config.Key) string {
	name, _, _ := strings.Cut(k.Field.Tag.Get("yaml"), ",")
	if rest, ok := strings.CutPrefix(doc, k.Field.Name); ok && (rest == "" || rest[0] == ' ' || rest[0] == ':' || rest[0] == ',') {
		return "`" + name + "`" + rest
	}
	return doc
}
