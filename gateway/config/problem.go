package config

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Problem is one thing wrong with a configuration: the key path it is at
// ("upstreams.accounts.url", "routes[2].kind"; empty when it concerns the
// whole file), the line of the file that key is on (0 when the key is not in
// the file, such as a required key left out), and what is wrong.
type Problem struct {
	Path    string
	Line    int
	Message string
}

// String is the one-line form `gateway check` prints and the reload log
// carries: "path (line N): message", "path: message" for a key not in the
// file, "line N: message" for a problem of the file's syntax.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Path)
	switch {
	case p.Line > 0 && p.Path != "":
		b.WriteString(" (line " + strconv.Itoa(p.Line) + ")")
	case p.Line > 0:
		b.WriteString("line " + strconv.Itoa(p.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ProblemList is every problem of one configuration, in report order (by
// line, then key path). It is the error Load, Parse and File.Report return.
type ProblemList []Problem

// Error is the problems one per line.
func (l ProblemList) Error() string {
	lines := make([]string, len(l))
	for i, p := range l {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Problems lists the problems of err one per line, for logs and `gateway
// check`: a ProblemList in its order, any other error split into its lines.
func Problems(err error) []string {
	if err == nil {
		return nil
	}
	var list ProblemList
	if errors.As(err, &list) {
		lines := make([]string, len(list))
		for i, p := range list {
			lines[i] = p.String()
		}
		return lines
	}
	var lines []string
	for l := range strings.SplitSeq(err.Error(), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// problemsOf splits errs into problems: joined errors into their parts, a
// ProblemList into its problems, every other error line by line, each line
// "key.path: message" (the form Validate, the route table and the upstream
// clients use) or a message about the whole file.
func problemsOf(errs ...error) []Problem {
	var out []Problem
	var walk func(err error)
	walk = func(err error) {
		if err == nil {
			return
		}
		var list ProblemList
		if errors.As(err, &list) && err.Error() == list.Error() {
			out = append(out, list...)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		for line := range strings.SplitSeq(err.Error(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, splitProblem(line))
			}
		}
	}
	for _, err := range errs {
		walk(err)
	}
	return out
}

// splitProblem reads "key.path: message". The path must start with a
// top-level key of Config, so that a message such as "decoding: ..." is not
// taken for one.
func splitProblem(line string) Problem {
	path, msg, ok := strings.Cut(line, ": ")
	if !ok || strings.ContainsAny(path, " \t") {
		return Problem{Message: line}
	}
	first := path
	if i := strings.IndexAny(first, ".["); i >= 0 {
		first = first[:i]
	}
	if _, known := yamlFields(reflect.TypeFor[Config]())[first]; !known {
		return Problem{Message: line}
	}
	return Problem{Path: path, Message: msg}
}

// report gives each problem the line of its key (or of the nearest enclosing
// key present in the file), drops the problems of a key whose value was
// already refused while decoding (a later check would only see its
// default), removes duplicates and sorts by line, then path.
func report(decoded []Problem, later []Problem, lines map[string]int) ProblemList {
	var out ProblemList
	seen := map[string]bool{}
	add := func(p Problem) {
		if p.Line == 0 && p.Path != "" {
			p.Line = lineOf(p.Path, lines)
		}
		if k := p.String(); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	refusedAt := map[string]bool{}
	for _, p := range decoded {
		// one problem per refused value: a variable that is not set may
		// also leave a value of the wrong type
		if p.Path != "" && refusedAt[p.Path] {
			continue
		}
		refusedAt[p.Path] = true
		add(p)
	}
	for _, p := range later {
		if !refused(p.Path, decoded) {
			add(p)
		}
	}
	// problems about no key in the file come last
	at := func(p Problem) int {
		if p.Line == 0 {
			return math.MaxInt
		}
		return p.Line
	}
	slices.SortStableFunc(out, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(at(a), at(b)), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Message, b.Message))
	})
	return out
}

// refused reports whether path is, or is under, a key whose value a decode
// problem already refused.
func refused(path string, decoded []Problem) bool {
	if path == "" {
		return false
	}
	for _, d := range decoded {
		if d.Path != "" && (path == d.Path || strings.HasPrefix(path, d.Path+".") || strings.HasPrefix(path, d.Path+"[")) {
			return true
		}
	}
	return false
}

// lineOf is the line of path in the file, or of its nearest enclosing key
// that is there; 0 when none is.
func lineOf(path string, lines map[string]int) int {
	for path != "" {
		if l, ok := lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
	return 0
}

// Suggest returns the candidate closest to word when it is close enough to
// be a likely misspelling (a "did you mean"), or "" when none is.
func Suggest(word string, candidates []string) string {
	best, bestDist := "", -1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if lc := strings.ToLower(c); len(lw) >= 3 && strings.HasPrefix(lc, lw) {
			return c // a key written short: pool for poolSize
		}
	}
	for _, c := range candidates {
		d := distance(lw, strings.ToLower(c))
		if bestDist < 0 || d < bestDist || (d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist > max(1, min(3, len(word)/3)) {
		return ""
	}
	return best
}

// DidYouMean is "; did you mean X?" when word is a near miss of one of
// candidates (Suggest), "" otherwise: what a message about an unknown name
// may end with.
func DidYouMean(word string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return fmt.Sprintf("; did you mean %s?", s)
	}
	return ""
}

// distance is the Levenshtein distance of a and b (bytes).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
