package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// File is a configuration file as read: the configuration, with every value
// that could be decoded (a refused value is left at its default, so later
// checks still run), and the problems found reading it. Report joins them
// with the problems of later checks.
type File struct {
	// Config is the decoded configuration, defaults filled in. It is
	// usable only when Report returns nil.
	Config   *Config
	problems []Problem
	lines    map[string]int
	// vars are the environment variables each key's value was read from.
	vars map[string][]string
}

// Load reads, expands and strictly decodes the file at path, then fills
// defaults. It does not validate: call Validate on the result. getenv looks
// variables up (os.Getenv in production, a map in tests). The error is a
// ProblemList.
func Load(path string, getenv func(string) string) (*Config, error) {
	f, err := Read(path, getenv)
	if err != nil {
		return nil, err
	}
	if err := f.Report(); err != nil {
		return nil, err
	}
	return f.Config, nil
}

// Parse is Load on bytes.
func Parse(data []byte, getenv func(string) string) (*Config, error) {
	f, err := Decode(data, getenv)
	if err != nil {
		return nil, err
	}
	if err := f.Report(); err != nil {
		return nil, err
	}
	return f.Config, nil
}

// Read is Decode on the file at path. Its error, a ProblemList, is for a
// file that could not be read or parsed at all.
func Read(path string, getenv func(string) string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ProblemList{{Message: fmt.Sprintf("reading config: %v", err)}}
	}
	return Decode(data, getenv)
}

// Decode expands ${VAR} and decodes data as far as it can: every unknown
// key, key given twice, value of the wrong type and variable that is not
// set is a problem of the returned File (see Report). The error, a
// ProblemList, is for YAML that does not parse or an empty document.
func Decode(data []byte, getenv func(string) string) (*File, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, ProblemList{syntaxProblem(err)}
	}
	if len(doc.Content) == 0 {
		return nil, ProblemList{{Message: "config is empty"}}
	}
	root := doc.Content[0]
	c := &checker{lines: map[string]int{}, vars: map[string][]string{}}
	expandNode(root, "", getenv, c)
	c.check(root, reflect.TypeFor[Config](), "")
	var cfg Config
	if err := root.Decode(&cfg); err != nil {
		// the checker refuses every value that does not decode; this is a
		// value it does not know how to check
		c.problems = append(c.problems, decodeProblems(err)...)
	}
	Defaults(&cfg)
	return &File{Config: &cfg, problems: c.problems, lines: c.lines, vars: c.vars}, nil
}

// Report returns every problem of the file and of errs (the later checks:
// Validate, the route table, ...), each with its key path and the line that
// key is on, in file order, as a ProblemList; nil when there is none. A
// later problem of a key whose value was refused while decoding is left
// out: it would be about the default that replaced it.
func (f *File) Report(errs ...error) error {
	later := problemsOf(errs...)
	for i, p := range later {
		// say where a value came from, unless the message does
		for _, name := range f.vars[p.Path] {
			if !strings.Contains(p.Message, name) {
				later[i].Message += " (from " + name + ")"
			}
		}
	}
	list := report(f.problems, later, f.lines)
	if len(list) == 0 {
		return nil
	}
	return list
}

// syntaxProblem is a YAML parse error with its line ("yaml: line 3: ...").
func syntaxProblem(err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(num); err == nil {
				return Problem{Line: line, Message: "YAML syntax: " + text}
			}
		}
	}
	return Problem{Message: "YAML syntax: " + msg}
}

// decodeProblems reads a *yaml.TypeError's "line N: ..." lines.
func decodeProblems(err error) []Problem {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return []Problem{{Message: "decoding: " + err.Error()}}
	}
	var out []Problem
	for _, e := range te.Errors {
		p := syntaxProblem(errors.New(e))
		p.Message = strings.TrimPrefix(p.Message, "YAML syntax: ")
		out = append(out, p)
	}
	return out
}

// expandNode replaces ${VAR} and ${VAR:-default} in every scalar. A scalar
// written plain is re-resolved after expansion, so "${PORT}" can fill an int.
// A variable that is not set and has no default is a problem naming it.
func expandNode(n *yaml.Node, path string, getenv func(string) string, c *checker) {
	switch n.Kind {
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return
		}
		var names []string
		v, missing, err := expand(n.Value, func(name string) string {
			names = append(names, name)
			return getenv(name)
		})
		c.vars[orRoot(path)] = names
		if err != nil {
			c.add(orRoot(path), n.Line, "%v", err)
			n.Value, n.Tag, n.Style = "", "!!null", 0
			return
		}
		if len(missing) > 0 {
			c.add(orRoot(path), n.Line, "%s", unsetMessage(missing))
		}
		n.Value = v
		if n.Style == 0 {
			n.Tag = resolveTag(v)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			expandNode(n.Content[i+1], join(path, n.Content[i].Value), getenv, c)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			expandNode(item, fmt.Sprintf("%s[%d]", path, i), getenv, c)
		}
	case yaml.DocumentNode, yaml.AliasNode:
		for _, item := range n.Content {
			expandNode(item, path, getenv, c)
		}
	}
}

func unsetMessage(missing []string) string {
	names := make([]string, len(missing))
	for i, m := range missing {
		names[i] = "${" + m + "}"
	}
	verb := "is not set and has"
	if len(names) > 1 {
		verb = "are not set and have"
	}
	return fmt.Sprintf("%s %s no default (set it, or write ${%s:-default} for an optional value)",
		strings.Join(names, ", "), verb, missing[0])
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

// Expand substitutes ${VAR} and ${VAR:-default} in s; "$$" is a literal
// "$". A variable that is unset or empty takes its default; one without a
// default is an error naming it (the expansion, with "" in its place, is
// still returned).
func Expand(s string, getenv func(string) string) (string, error) {
	v, missing, err := expand(s, getenv)
	if err != nil {
		return "", err
	}
	if len(missing) > 0 {
		return v, errors.New(unsetMessage(missing))
	}
	return v, nil
}

// expand is Expand that lists the variables without a value or default.
func expand(s string, getenv func(string) string) (string, []string, error) {
	var b strings.Builder
	var missing []string
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
			return "", nil, fmt.Errorf("unterminated ${ in %q", s)
		}
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validVarName(name) {
			return "", nil, fmt.Errorf("invalid variable name %q", name)
		}
		v := getenv(name)
		if v == "" {
			if hasDef {
				v = def
			} else if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
		b.WriteString(v)
		i += end
	}
	return b.String(), missing, nil
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
