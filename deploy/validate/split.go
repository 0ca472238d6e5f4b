package main

import (
	"bytes"
	"strconv"
	"strings"
)

// Document is one YAML document of a stream.
type Document struct {
	// Source is the template that produced it (helm's "# Source:" comment),
	// or "document N" (1-based) when there is none.
	Source string
	// Body is the document's text without its separator line.
	Body []byte
}

// Split cuts a multi-document YAML stream at its "---" separator lines and
// drops documents that hold only comments and blank lines (helm renders a
// disabled template as one).
func Split(stream []byte) []Document {
	var docs []Document
	var cur bytes.Buffer
	n := 0
	flush := func() {
		n++
		body := bytes.Clone(cur.Bytes())
		cur.Reset()
		if source, ok := content(body); ok {
			if source == "" {
				source = "document " + strconv.Itoa(n)
			}
			docs = append(docs, Document{Source: source, Body: body})
		}
	}
	for _, line := range bytes.SplitAfter(stream, []byte("\n")) {
		if isSeparator(line) {
			flush()
			continue
		}
		cur.Write(line)
	}
	flush()
	return docs
}

// isSeparator reports a document start marker: "---" alone or followed by
// a space or comment.
func isSeparator(line []byte) bool {
	l := strings.TrimRight(string(line), "\r\n")
	return l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t")
}

// content reports whether body holds anything but comments and blank lines,
// and the helm source comment if there is one.
func content(body []byte) (source string, ok bool) {
	for _, line := range strings.Split(string(body), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
		case strings.HasPrefix(t, "# Source: ") && source == "":
			source = strings.TrimPrefix(t, "# Source: ")
		case strings.HasPrefix(t, "#"):
		default:
			ok = true
		}
	}
	return source, ok
}
