package main

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// stepKind says what the doc test does with one block of a page.
type stepKind int

const (
	// stepRun runs each $ command of a console block in the page's shell
	// and compares what it prints with the lines under it.
	stepRun stepKind = iota
	// stepBackground starts the block's one command as if in a terminal of
	// its own, waiting until it has printed the lines under it.
	stepBackground
	// stepOutput waits until a background command has printed the block's
	// lines (anywhere in its output so far): the latest one, or with
	// doctest:output=WORD the latest whose command holds WORD.
	stepOutput
	// stepAppend appends the block's text to a file of the working
	// directory, as a reader pasting it at the end of that file.
	stepAppend
	// stepInterrupt sends SIGINT to the background commands (Ctrl-C in
	// their terminals) and waits for each to exit 0.
	stepInterrupt
	// stepSkip is a shell block the test does not run: it is only checked
	// for syntax, and its reason is reported.
	stepSkip
)

// step is one block of a page, in page order.
type step struct {
	kind stepKind
	line int // 1-based line of the block's opening fence
	// cmds are the $ commands of a run or background block.
	cmds []command
	// expect are the lines of an output block.
	expect []string
	// eventually runs a command again until its output matches (a reload
	// the reader's typing speed would have waited for).
	eventually bool
	// of picks the background command of an output block.
	of string
	// file and text are an append block's target and content.
	file, text string
	// reason is why a skipped block is not run; script is its commands.
	reason, script string
}

// command is one $ line (and its continuation lines) of a console block.
type command struct {
	text   string   // as a reader pastes it, without the prompt
	line   int      // 1-based line of its $
	expect []string // the lines printed under it
	// first and end are the 0-based source lines of expect, end excluded,
	// and indent the block's indentation, for -update.
	first, end int
	indent     string
}

// shellLanguages are fence languages whose blocks hold commands.
var shellLanguages = map[string]bool{"console": true, "sh": true, "shell": true, "bash": true, "zsh": true, "shell-session": true}

// page is a parsed Markdown file.
type page struct {
	path  string
	src   []byte
	steps []step
}

// runnable says whether the page has anything to run.
func (p *page) runnable() bool {
	for _, s := range p.steps {
		if s.kind != stepSkip {
			return true
		}
	}
	return false
}

// calls reports whether a command the page runs calls one of programs
// (npm, npx): a page that needs a program the test does not always need.
func (p *page) calls(programs ...string) bool {
	for _, s := range p.steps {
		if s.kind == stepSkip {
			continue
		}
		for _, c := range s.cmds {
			for _, word := range strings.FieldsFunc(c.text, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()", r) }) {
				if slices.Contains(programs, word) {
					return true
				}
			}
		}
	}
	return false
}

// parsePage reads the steps of a Markdown file, or every problem of it:
// an indented code block (commands must be in fenced blocks, so that none
// escapes the test), a fenced block without a language, a shell block that
// is neither a console block nor marked doctest:skip with a reason, and
// malformed doctest attributes.
func parsePage(path string, src []byte) (*page, []error) {
	p := &page{path: path, src: src}
	var errs []error
	lineOf := lineIndex(src)
	fail := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...)))
	}
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			line := fenceLine(src, n, lineOf)
			s, err := parseFence(src, n, line, lineOf)
			if err != nil {
				fail(line, "%v", err)
			} else if s != nil {
				p.steps = append(p.steps, *s)
			}
		case *ast.CodeBlock:
			fail(blockLine(n, lineOf), "an indented code block: fence it with its language (```console, ```yaml, ```text ...) so the doc test sees it")
		case *ast.HTMLBlock:
			body := strings.TrimSpace(string(n.Lines().Value(src)))
			if rest, ok := strings.CutPrefix(body, "<!-- doctest:"); ok {
				directive := strings.TrimSpace(strings.TrimSuffix(rest, "-->"))
				if directive != "interrupt" {
					fail(blockLine(n, lineOf), "unknown directive %q (known: interrupt)", directive)
				} else {
					p.steps = append(p.steps, step{kind: stepInterrupt, line: blockLine(n, lineOf)})
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return p, errs
}

// parseFence makes a step of a fenced block, or nil for a block the test
// has nothing to do with (YAML to read, JSON, text).
func parseFence(src []byte, n *ast.FencedCodeBlock, line int, lineOf []int) (*step, error) {
	if n.Info == nil {
		return nil, fmt.Errorf("a fenced block without a language: give it one (console, yaml, json, text ...)")
	}
	info := strings.Fields(string(n.Info.Segment.Value(src)))
	lang, attrs := info[0], info[1:]
	lines, first := blockLines(src, n, lineOf)
	indent := fenceIndent(src, n)
	s := &step{line: line}
	switch {
	case len(attrs) > 0 && attrs[0] == "doctest:skip":
		s.kind = stepSkip
		s.reason = strings.Join(attrs[1:], " ")
		if s.reason == "" {
			return nil, fmt.Errorf("doctest:skip needs a reason after it")
		}
		if !shellLanguages[lang] {
			return nil, fmt.Errorf("doctest:skip on a %s block: only shell blocks are run", lang)
		}
		if lang == "console" {
			cmds, err := parseConsole(lines, first, indent)
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			for _, c := range cmds {
				b.WriteString(c.text + "\n")
			}
			s.script = b.String()
		} else {
			s.script = strings.Join(lines, "\n") + "\n"
		}
		return s, nil
	case lang == "console":
		s.kind = stepRun
		for _, a := range attrs {
			switch a {
			case "doctest:background":
				s.kind = stepBackground
			case "doctest:eventually":
				s.eventually = true
			default:
				return nil, fmt.Errorf("unknown attribute %q of a console block (known: doctest:background, doctest:eventually, doctest:skip REASON)", a)
			}
		}
		cmds, err := parseConsole(lines, first, indent)
		if err != nil {
			return nil, err
		}
		if len(cmds) == 0 {
			return nil, fmt.Errorf("a console block without a $ command")
		}
		if s.kind == stepBackground && len(cmds) != 1 {
			return nil, fmt.Errorf("a doctest:background block holds one command, not %d", len(cmds))
		}
		s.cmds = cmds
		return s, nil
	case shellLanguages[lang]:
		return nil, fmt.Errorf("a %s block is not run: write it as a console block ($ before each command, its output under it) or mark it doctest:skip with the reason", lang)
	}
	for _, a := range attrs {
		switch {
		case (a == "doctest:output" || strings.HasPrefix(a, "doctest:output=")) && lang == "text":
			s.kind = stepOutput
			s.of = strings.TrimPrefix(strings.TrimPrefix(a, "doctest:output"), "=")
			s.expect = lines
			return s, nil
		case strings.HasPrefix(a, "doctest:append="):
			s.kind = stepAppend
			s.file = strings.TrimPrefix(a, "doctest:append=")
			s.text = strings.Join(lines, "\n") + "\n"
			if s.file == "" || strings.Contains(s.file, "..") || strings.HasPrefix(s.file, "/") {
				return nil, fmt.Errorf("doctest:append names a file of the working directory, not %q", s.file)
			}
			return s, nil
		case strings.HasPrefix(a, "doctest:"):
			return nil, fmt.Errorf("unknown attribute %q of a %s block (known: doctest:output[=WORD] on text, doctest:append=FILE)", a, lang)
		}
	}
	return nil, nil
}

// heredoc finds the words of here-documents a command line opens.
// (a here-string, <<<, is not one).
var heredoc = regexp.MustCompile(`(?:^|[^<])<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)

// parseConsole splits a console block into its commands: a line starting
// "$ " starts one; it goes on over lines ending with a backslash and over
// the body of a here-document it opens; the lines up to the next command
// are its output. first is the 0-based source line of lines[0].
func parseConsole(lines []string, first int, indent string) ([]command, error) {
	var cmds []command
	var open []string // here-document words still open
	continued := false
	for i, l := range lines {
		if continued || len(open) > 0 {
			c := &cmds[len(cmds)-1]
			c.text += "\n" + l
			if len(open) > 0 {
				if strings.TrimLeft(l, "\t") == open[0] {
					open = open[1:]
				}
			} else {
				for _, m := range heredoc.FindAllStringSubmatch(l, -1) {
					open = append(open, m[1])
				}
			}
			continued = len(open) == 0 && strings.HasSuffix(l, `\`)
			c.first, c.end = first+i+1, first+i+1
			continue
		}
		if rest, ok := strings.CutPrefix(l, "$ "); ok {
			cmds = append(cmds, command{text: rest, line: first + i + 1, first: first + i + 1, end: first + i + 1, indent: indent})
			for _, m := range heredoc.FindAllStringSubmatch(rest, -1) {
				open = append(open, m[1])
			}
			continued = len(open) == 0 && strings.HasSuffix(rest, `\`)
			continue
		}
		if len(cmds) == 0 {
			return nil, fmt.Errorf("line %d: output before the first $ command", first+i+1)
		}
		c := &cmds[len(cmds)-1]
		c.expect = append(c.expect, l)
		c.end = first + i + 1
	}
	if len(open) > 0 {
		return nil, fmt.Errorf("a here-document (<<%s) is not closed", open[0])
	}
	if continued {
		return nil, fmt.Errorf("the last command ends with a backslash")
	}
	return cmds, nil
}

// lineIndex returns the offset at which each line of src starts.
func lineIndex(src []byte) []int {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineAt is the 0-based line holding offset off.
func lineAt(lineOf []int, off int) int {
	lo, hi := 0, len(lineOf)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if lineOf[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// blockLines returns the lines of a block's content and the 0-based
// source line of the first.
func blockLines(src []byte, n ast.Node, lineOf []int) ([]string, int) {
	segs := n.Lines()
	if segs.Len() == 0 {
		return nil, 0
	}
	var out []string
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		out = append(out, strings.TrimRight(string(bytes.TrimSuffix(seg.Value(src), []byte("\n"))), "\r"))
	}
	return out, lineAt(lineOf, segs.At(0).Start)
}

// fenceLine is the 1-based line of a fenced block's opening fence.
func fenceLine(src []byte, n *ast.FencedCodeBlock, lineOf []int) int {
	if n.Info != nil {
		return lineAt(lineOf, n.Info.Segment.Start) + 1
	}
	return blockLine(n, lineOf) - 1
}

// blockLine is the 1-based line of a block's first content line.
func blockLine(n ast.Node, lineOf []int) int {
	if n.Lines().Len() == 0 {
		return 0
	}
	return lineAt(lineOf, n.Lines().At(0).Start) + 1
}

// fenceIndent is the indentation of a fenced block's opening fence (inside
// a list item), which -update keeps on the lines it writes.
func fenceIndent(src []byte, n *ast.FencedCodeBlock) string {
	if n.Info == nil {
		return ""
	}
	start := n.Info.Segment.Start
	i := bytes.LastIndexByte(src[:start], '\n') + 1
	line := src[i:start]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " "))])
}
