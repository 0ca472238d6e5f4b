package router

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionOf(t *testing.T) {
	t.Parallel()
	tests := []struct{ desc, path, want string }{
		{desc: "v1", path: "/v1/accounts", want: "v1"},
		{desc: "bare version", path: "/v22", want: "v22"},
		{desc: "version with trailing slash", path: "/v3/", want: "v3"},
		{desc: "no digits", path: "/v/accounts"},
		{desc: "letters after v", path: "/vx/accounts"},
		{desc: "capital V", path: "/V1/accounts"},
		{desc: "no leading slash", path: "v1/accounts"},
		{desc: "empty", path: ""},
		{desc: "too long", path: "/v12345678901/a"},
		{desc: "digits then letters", path: "/v1a/accounts"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, VersionOf(tt.path))
		})
	}
}

func FuzzVersionOf(f *testing.F) {
	for _, s := range []string{"/v1/a", "/v", "/v99999/x", "//v1", "/v1%2f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		v := VersionOf(path)
		if v == "" {
			return
		}
		if !strings.HasPrefix(path, "/"+v) || v[0] != 'v' || len(v) < 2 {
			t.Fatalf("VersionOf(%q) = %q", path, v)
		}
		for _, r := range v[1:] {
			if r < '0' || r > '9' {
				t.Fatalf("VersionOf(%q) = %q has a non-digit", path, v)
			}
		}
		if rest := path[len(v)+1:]; rest != "" && rest[0] != '/' {
			t.Fatalf("VersionOf(%q) = %q is not a whole segment", path, v)
		}
	})
}

func TestMuxPattern(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/{version:v[0-9]+}/accounts/{id}", muxPattern("/{version}/accounts/{id}"))
}

func TestResolverNamesTheUpstream(t *testing.T) {
	t.Parallel()
	some := Resolver[int](func(name string) (int, error) {
		if name != "a" {
			return 0, errors.New("not configured")
		}
		return 7, nil
	})
	v, err := some.Resolve("a")
	require.NoError(t, err)
	assert.Equal(t, 7, v)
	_, err = some.Resolve("b")
	assert.EqualError(t, err, `upstream "b": not configured`)
	_, err = Resolver[int](nil).Resolve("a")
	assert.ErrorContains(t, err, `upstream "a": nothing resolves`)
}
