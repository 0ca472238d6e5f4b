package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckNulls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want []string
	}{
		{desc: "none", in: "a: {b: [1, x, {}]}\nc: ''\n"},
		{desc: "an empty key", in: "metadata:\n  annotations:\n  labels: {a: b}\n", want: []string{"d: null value at /metadata/annotations"}},
		{desc: "tilde and null, in key order", in: "z: ~\na: [1, null]\n", want: []string{"d: null value at /a/1", "d: null value at /z"}},
		{desc: "keys escaped as in a JSON pointer", in: "a/b: {c~d: null}\n", want: []string{"d: null value at /a~1b/c~0d"}},
		{desc: "a whole document", in: "~\n", want: []string{"d: null value at (the whole document)"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			err := CheckNulls([]Document{{Source: "d", Body: []byte(tc.in)}})
			var got []string
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					assert.ErrorIs(t, e, ErrNull)
					got = append(got, e.Error())
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzCheckNulls checks that any input is either reported as not YAML or
// as nulls at JSON pointers, and never panics.
func FuzzCheckNulls(f *testing.F) {
	for _, s := range []string{"a:\n", "a: [~, {b: null}]\n", "'a/b': {'c~': ~}\n", "~", "a: [\n", "- 1\n- !!null ''\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		err := CheckNulls([]Document{{Source: "d", Body: []byte(in)}})
		if err == nil {
			return
		}
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			var de *DocumentError
			assert.True(t, errors.As(e, &de), "%v", e)
		}
	})
}
