package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		in      string
		sources []string
		bodies  []string
	}{
		{desc: "empty", in: ""},
		{desc: "one document without separator", in: "a: 1\n", sources: []string{"document 1"}, bodies: []string{"a: 1\n"}},
		{desc: "helm sources and an empty template", in: "---\n# Source: c/a.yaml\na: 1\n---\n# Source: c/b.yaml\n---\n# Source: c/c.yaml\nc: 3\n",
			sources: []string{"c/a.yaml", "c/c.yaml"}, bodies: []string{"# Source: c/a.yaml\na: 1\n", "# Source: c/c.yaml\nc: 3\n"}},
		{desc: "separator with a comment and CRLF", in: "a: 1\r\n--- # next\r\nb: 2\r\n", sources: []string{"document 1", "document 2"},
			bodies: []string{"a: 1\r\n", "b: 2\r\n"}},
		{desc: "dashes inside a block are not separators", in: "a: |\n  ---x\n  ----\nb: 2\n", sources: []string{"document 1"},
			bodies: []string{"a: |\n  ---x\n  ----\nb: 2\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			docs := Split([]byte(tc.in))
			var sources, bodies []string
			for _, d := range docs {
				sources = append(sources, d.Source)
				bodies = append(bodies, string(d.Body))
			}
			assert.Equal(t, tc.sources, sources)
			assert.Equal(t, tc.bodies, bodies)
		})
	}
}

// FuzzSplit checks that splitting never loses or invents content: every
// non-separator line of the input is in exactly one document or in a
// dropped comment-only document.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "a: 1\n", "---\n# Source: x\n---\nb: 2", "--- #c\r\nx: y\r\n---", "a: |\n  ---\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		docs := Split([]byte(in))
		var joined []byte
		for _, d := range docs {
			_, ok := content(d.Body)
			assert.True(t, ok, "a kept document has content")
			assert.NotEmpty(t, d.Source)
			joined = append(joined, d.Body...)
		}
		assert.LessOrEqual(t, len(joined), len(in))
		for _, line := range bytes.SplitAfter(joined, []byte("\n")) {
			assert.False(t, isSeparator(line), "a separator line leaked into a document")
		}
	})
}

// FuzzDecode checks that arbitrary input never panics the decoder and that
// every object it returns carries a known kind and a name.
func FuzzDecode(f *testing.F) {
	f.Add("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 1}]}\n")
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\nbogus: 1\n")
	f.Add("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: m}\nspec: {endpoints: [{port: admin}]}\n")
	f.Add("kind: [\n")
	f.Fuzz(func(t *testing.T, in string) {
		objs, _ := Decode([]byte(in))
		kinds := knownKinds()
		for _, o := range objs {
			assert.Contains(t, kinds, o.Kind)
			assert.NotEmpty(t, o.Name)
		}
	})
}
