package main

import (
	"regexp"
	"strings"
)

// volatile are the parts of an output that differ from run to run, each
// replaced by a fixed word in both the expected and the actual text before
// they are compared, so that the docs can show real outputs.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	// a JWT, before its base64 parts look like anything else
	{regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`), "<JWT>"},
	// ISO 8601 instants: the envelope's timeStamp, the engine's times
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?`), "<TIME>"},
	// the text log's clock, HTTP dates
	{regexp.MustCompile(`\btime=\d\d:\d\d:\d\d\.\d+`), "time=<TIME>"},
	{regexp.MustCompile(`\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT`), "<DATE>"},
	// durations in milliseconds and seconds
	{regexp.MustCompile(`("?(?:totalTime|TotalTime|total_ms|upstream_ms|dur)"?[:=]\s*)-?[0-9.]+(?:e-?\d+)?`), "${1}<MS>"},
	// loopback ports: the test gives every listener a free one
	{regexp.MustCompile(`\b(127\.0\.0\.1|localhost):\d+`), "${1}:<PORT>"},
	// trace and span ids, digests, fingerprints
	{regexp.MustCompile(`\b[0-9a-f]{16,}\b`), "<HEX>"},
	// record ids (15 or 18 characters, key prefix first)
	{regexp.MustCompile(`\b0[0-9A-Za-z]{2}[0-9A-Za-z]{12}(?:[0-9A-Za-z]{3})?\b`), "<ID>"},
	// the Go release of the binary
	{regexp.MustCompile(`\bgo1\.\d+(?:\.\d+)?`), "go<VERSION>"},
	// the process's open-files limit
	{regexp.MustCompile(`\b(soft|hard|open_files_limit)=\d+`), "${1}=<N>"},
}

// normalize replaces the volatile parts of a line, and bytes that are not
// UTF-8 (a command may print any) with U+FFFD.
func normalize(line string) string {
	line = strings.ToValidUTF8(line, "\uFFFD")
	for _, v := range volatile {
		line = v.re.ReplaceAllString(line, v.with)
	}
	return line
}

// ellipsis is a line of its own in an expected output that stands for any
// number of lines; anyText inside a line stands for any text.
const (
	ellipsis = "..."
	anyText  = "[..]"
)

// cleanLines splits an output into lines without trailing blanks, and
// drops empty lines at its end.
func cleanLines(s string) []string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// linePattern compiles one expected line: its volatile parts normalized,
// [..] matching any text, the rest literal.
func linePattern(expected string) *regexp.Regexp {
	parts := strings.Split(normalize(expected), anyText)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// matches says whether the actual lines are the expected ones: each
// expected line matches one actual line, and a "..." line any number of
// them (none included).
func matches(expected, actual []string) bool {
	want := make([]*regexp.Regexp, len(expected))
	for i, e := range expected {
		if strings.TrimSpace(e) != ellipsis {
			want[i] = linePattern(strings.TrimRight(e, " \t"))
		}
	}
	got := make([]string, len(actual))
	for i, a := range actual {
		got[i] = normalize(a)
	}
	// memo[i][j]: expected[i:] against actual[j:] is known not to match.
	failed := make(map[[2]int]bool)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if i == len(want) {
			return j == len(got)
		}
		if failed[[2]int{i, j}] {
			return false
		}
		ok := false
		if want[i] == nil {
			for k := j; k <= len(got) && !ok; k++ {
				ok = match(i+1, k)
			}
		} else {
			ok = j < len(got) && want[i].MatchString(got[j]) && match(i+1, j+1)
		}
		if !ok {
			failed[[2]int{i, j}] = true
		}
		return ok
	}
	return match(0, 0)
}

// contains says whether the expected lines appear in order within the
// actual ones, with anything before and after them.
func contains(expected, actual []string) bool {
	framed := append(append([]string{ellipsis}, expected...), ellipsis)
	return matches(framed, actual)
}

// startsWith says whether the actual lines begin with the expected ones.
func startsWith(expected, actual []string) bool {
	return matches(append(append([]string(nil), expected...), ellipsis), actual)
}
