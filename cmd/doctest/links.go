package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// checkLinks reports every relative link of a page that points at no file,
// or at a heading its target page does not have. repo is the folder the
// page's path is relative to.
func checkLinks(repo string, p *page) []error {
	var errs []error
	lineOf := lineIndex(p.src)
	doc := goldmark.New().Parser().Parse(text.NewReader(p.src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		link, ok := n.(*ast.Link)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		dest := string(link.Destination)
		if strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
			return ast.WalkContinue, nil
		}
		file, anchor, _ := strings.Cut(dest, "#")
		target := p.path
		if file != "" {
			target = filepath.Join(filepath.Dir(p.path), file)
		}
		line := linkLine(n, lineOf)
		info, err := os.Stat(filepath.Join(repo, target))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: link to %s: no such file", p.path, line, dest))
			return ast.WalkContinue, nil
		}
		if anchor == "" || info.IsDir() || !strings.HasSuffix(target, ".md") {
			return ast.WalkContinue, nil
		}
		src, err := os.ReadFile(filepath.Join(repo, target))
		if err != nil {
			errs = append(errs, err)
			return ast.WalkContinue, nil
		}
		if !headingAnchors(src)[anchor] {
			errs = append(errs, fmt.Errorf("%s:%d: link to %s: %s has no heading #%s", p.path, line, dest, target, anchor))
		}
		return ast.WalkContinue, nil
	})
	return errs
}

// headingAnchors are the anchors GitHub gives a page's headings: the
// heading's text lower-cased, without punctuation, spaces as hyphens, and
// -1, -2 ... after a repeated one.
func headingAnchors(src []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			slug := slugify(plainText(h, src))
			if k := seen[slug]; k > 0 {
				anchors[slug+"-"+strconv.Itoa(k)] = true
			} else {
				anchors[slug] = true
			}
			seen[slug]++
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return anchors
}

// plainText is a heading's text as GitHub slugs it: code spans included.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		if s, ok := c.(*ast.String); ok && entering {
			b.Write(s.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// linkLine is the 1-based line of a link, from its first text.
func linkLine(n ast.Node, lineOf []int) int {
	for c := n.FirstChild(); c != nil; c = c.FirstChild() {
		if t, ok := c.(*ast.Text); ok {
			return lineAt(lineOf, t.Segment.Start) + 1
		}
	}
	if p := n.Parent(); p != nil && p.Lines().Len() > 0 {
		return lineAt(lineOf, p.Lines().At(0).Start) + 1
	}
	return 0
}
