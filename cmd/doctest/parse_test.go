package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConsole(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		lines []string
		want  []command // text, expect, first, end only
	}{
		{desc: "commands and their outputs",
			lines: []string{"$ echo a", "a", "$ true", "$ echo b; echo c", "b", "c"},
			want: []command{{text: "echo a", expect: []string{"a"}, first: 11, end: 12},
				{text: "true", first: 13, end: 13}, {text: "echo b; echo c", expect: []string{"b", "c"}, first: 14, end: 16}}},
		{desc: "a backslash continues a command",
			lines: []string{`$ curl -s \`, `  -d x \`, "  http://h", "out"},
			want:  []command{{text: "curl -s \\\n  -d x \\\n  http://h", expect: []string{"out"}, first: 13, end: 14}}},
		{desc: "a here-document is part of its command, $ lines in it included",
			lines: []string{"$ cat > f <<'EOF'", "$ not a command", "a: b", "EOF", "$ cat f", "a: b"},
			want: []command{{text: "cat > f <<'EOF'\n$ not a command\na: b\nEOF", first: 14, end: 14},
				{text: "cat f", expect: []string{"a: b"}, first: 15, end: 16}}},
		{desc: "a here-string opens nothing",
			lines: []string{"$ jq . <<< '{}'", "{}"},
			want:  []command{{text: "jq . <<< '{}'", expect: []string{"{}"}, first: 11, end: 12}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := parseConsole(tt.lines, 10, "")
			require.NoError(t, err)
			require.Len(t, got, len(tt.want))
			for i := range got {
				got[i].line, got[i].indent = 0, ""
				assert.Equal(t, tt.want[i], got[i])
			}
		})
	}
}

func TestParseConsoleRefuses(t *testing.T) {
	t.Parallel()
	for _, lines := range [][]string{
		{"output first", "$ echo"},
		{"$ cat <<EOF", "never closed"},
		{`$ echo \`},
	} {
		_, err := parseConsole(lines, 0, "")
		assert.Error(t, err, "%q", lines)
	}
}

func TestParsePage(t *testing.T) {
	t.Parallel()
	src := "# T\n\n```console doctest:background\n$ go run ./cmd/gateway\nserving\n```\n\n" +
		"```yaml doctest:append=config.yaml\n  - path: x\n```\n\n<!-- doctest:interrupt -->\n\n" +
		"```sh doctest:skip needs a cluster\nkubectl get pods\n```\n\n```text doctest:output=collector\nline\n```\n\n" +
		"```console doctest:eventually\n$ curl x\ny\n```\n\n```json\n{}\n```\n"
	p, errs := parsePage("p.md", []byte(src))
	require.Empty(t, errs)
	kinds := []stepKind{}
	for _, s := range p.steps {
		kinds = append(kinds, s.kind)
	}
	assert.Equal(t, []stepKind{stepBackground, stepAppend, stepInterrupt, stepSkip, stepOutput, stepRun}, kinds)
	assert.Equal(t, "config.yaml", p.steps[1].file)
	assert.Equal(t, "  - path: x\n", p.steps[1].text)
	assert.Equal(t, "needs a cluster", p.steps[3].reason)
	assert.Equal(t, "collector", p.steps[4].of)
	assert.True(t, p.steps[5].eventually)
	assert.Equal(t, 3, p.steps[0].line)
	assert.Equal(t, 4, p.steps[0].cmds[0].line)
}

// TestParsePageRefuses: every way a command could escape the test is an
// error naming its line.
func TestParsePageRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ desc, src, want string }{
		{"an indented code block", "text\n\n    curl x\n", "p.md:3: an indented code block"},
		{"a fence without a language", "```\ncurl x\n```\n", "p.md:1: a fenced block without a language"},
		{"a shell block that is not run", "```sh\ncurl x\n```\n", "p.md:1: a sh block is not run"},
		{"a skip without its reason", "```bash doctest:skip\ncurl x\n```\n", "doctest:skip needs a reason"},
		{"an unknown attribute", "```console doctest:later\n$ x\n```\n", `unknown attribute "doctest:later"`},
		{"a console block without a command", "```console\nhello\n```\n", "output before the first $ command"},
		{"two commands in the background", "```console doctest:background\n$ a\n$ b\n```\n", "holds one command"},
		{"an unknown directive", "<!-- doctest:pause -->\n", `unknown directive "pause"`},
		{"an append outside the working directory", "```yaml doctest:append=../x\na\n```\n", "names a file of the working directory"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, errs := parsePage("p.md", []byte(tt.src))
			require.Len(t, errs, 1)
			assert.Contains(t, errs[0].Error(), tt.want)
		})
	}
}

func TestMatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc             string
		expected, actual string
		want             bool
	}{
		{"equal", "a\nb", "a\nb", true},
		{"a line differs", "a\nb", "a\nc", false},
		{"a line missing", "a\nb", "a", false},
		{"a line too many", "a", "a\nb", false},
		{"trailing blanks and empty lines do not count", "a  \n\n", "a\n", true},
		{"... matches any lines", "a\n...\nd", "a\nb\nc\nd", true},
		{"... matches none", "a\n...\nd", "a\nd", true},
		{"... at the end", "a\n...", "a\nb\nc", true},
		{"[..] matches any text", "id: [..] end", "id: 42 end", true},
		{"[..] does not span lines", "a[..]c", "ab\nc", false},
		{"times, durations and trace ids", `{"timeStamp":"2026-11-22T01:21:45.123Z","totalTime":3.217,"trace":"52f5debbdbe26ac3dcf896460965814b"}`,
			`{"timeStamp":"2027-01-02T03:04:05.678Z","totalTime":0.5,"trace":"0838cceeda9e211e8c72ada2c9ecd481"}`, true},
		{"record ids and ports", "GET /v2/accounts/001lZLi13jq9SfpXNP on 127.0.0.1:8443", "GET /v2/accounts/001X344cH8pbBYx6hY on 127.0.0.1:41523", true},
		{"text logs", "time=10:42:01.337 level=INFO total_ms=1.191", "time=02:46:19.052 level=INFO total_ms=0.2", true},
		{"a status is not volatile", `{"statusCode":201}`, `{"statusCode":400}`, false},
		{"a name is not volatile", "Burlington Textiles", "Pyramid Construction", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, matches(cleanLines(tt.expected), cleanLines(tt.actual)))
		})
	}
	assert.True(t, contains([]string{"b"}, []string{"a", "b", "c"}))
	assert.True(t, startsWith([]string{"a"}, []string{"a", "b"}))
	assert.False(t, startsWith([]string{"b"}, []string{"a", "b"}))
}

func TestSlugify(t *testing.T) {
	t.Parallel()
	src := "# A tour\n## Data: query, search, describe\n## `POST /{version}/files`\n## Data: query, search, describe\n" +
		"### The backend's behaviour: `upstreams.<name>.options`\n"
	got := headingAnchors([]byte(src))
	for _, a := range []string{"a-tour", "data-query-search-describe", "post-versionfiles", "data-query-search-describe-1",
		"the-backends-behaviour-upstreamsnameoptions"} {
		assert.True(t, got[a], "%s in %v", a, got)
	}
}

func FuzzParsePage(f *testing.F) {
	f.Add("```console\n$ echo a\na\n```\n")
	f.Add("```console doctest:background\n$ cat <<EOF\nx\nEOF\n```\n")
	f.Add("- item\n\n  ```console\n  $ x \\\n  y\n  ```\n<!-- doctest:interrupt -->\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, errs := parsePage("p.md", []byte(src))
		if len(errs) > 0 {
			return
		}
		for _, s := range p.steps {
			for _, c := range s.cmds {
				if c.first > c.end || c.end > strings.Count(src, "\n")+1 {
					t.Fatalf("output lines [%d, %d) outside the page", c.first, c.end)
				}
			}
		}
	})
}

func FuzzMatches(f *testing.F) {
	f.Add("a\n...\n[..]b", "a\nx\nyb")
	f.Add("[..][..]", "")
	f.Fuzz(func(t *testing.T, expected, actual string) {
		lines := cleanLines(actual)
		matches(cleanLines(expected), lines)
		// a text always matches itself once no wildcard is in it
		if !strings.Contains(actual, anyText) && !strings.Contains(actual, ellipsis) && !matches(lines, lines) {
			t.Fatalf("%q does not match itself", actual)
		}
	})
}
