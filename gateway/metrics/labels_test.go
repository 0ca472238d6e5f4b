package metrics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNormalizeRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		route string
		want  string
	}{
		{desc: "collection template", route: "/{version}/accounts", want: "/{version}/accounts"},
		{desc: "item template", route: "/{version}/accounts/{accountId}", want: "/{version}/accounts/{accountId}"},
		{desc: "nested placeholders", route: "/{version}/sobjects/{type}/describe", want: "/{version}/sobjects/{type}/describe"},
		{desc: "mux pattern with braces and slash", route: "/{version:v[0-9]{1,3}}/files/{rest:.*/x}", want: "/{version:v[0-9]{1,3}}/files/{rest:.*/x}"},
		{desc: "literal with digits after a letter", route: "/{version}/oauth2/token", want: "/{version}/oauth2/token"},
		{desc: "root", route: "/", want: "/"},
		{desc: "no route matched", route: "", want: UnmatchedRoute},
		{desc: "raw versioned path", route: "/v1/accounts", want: NonTemplateRoute},
		{desc: "raw path with an id", route: "/{version}/accounts/001xx000003DGb2AAG", want: NonTemplateRoute},
		{desc: "numeric id", route: "/{version}/tasks/42", want: NonTemplateRoute},
		{desc: "query string", route: "/{version}/query?q=SELECT", want: NonTemplateRoute},
		{desc: "escaped bytes", route: "/{version}/users/j%20doe", want: NonTemplateRoute},
		{desc: "space", route: "/{version}/users/j doe", want: NonTemplateRoute},
		{desc: "relative", route: "{version}/accounts", want: NonTemplateRoute},
		{desc: "empty segment", route: "/{version}//accounts", want: NonTemplateRoute},
		{desc: "trailing slash", route: "/{version}/accounts/", want: NonTemplateRoute},
		{desc: "empty placeholder", route: "/{}/accounts", want: NonTemplateRoute},
		{desc: "placeholder without a name", route: "/{:v[0-9]+}/accounts", want: NonTemplateRoute},
		{desc: "unbalanced placeholder", route: "/{version/accounts", want: NonTemplateRoute},
		{desc: "brace inside a literal", route: "/{version}/acc{x}", want: NonTemplateRoute},
		{desc: "too long", route: "/{version}/" + strings.Repeat("a", maxRouteLen), want: NonTemplateRoute},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, NormalizeRoute(tc.route))
		})
	}
}

func TestNormalizeLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		fn   func(string) string
		in   string
		want string
	}{
		{desc: "method GET", fn: normalizeMethod, in: "GET", want: "GET"},
		{desc: "method lowercase is not a standard method", fn: normalizeMethod, in: "get", want: Other},
		{desc: "method invented", fn: normalizeMethod, in: "BREW", want: Other},
		{desc: "version v2", fn: normalizeVersion, in: "v2", want: "v2"},
		{desc: "version v1234", fn: normalizeVersion, in: "v1234", want: "v1234"},
		{desc: "version too long", fn: normalizeVersion, in: "v12345", want: Other},
		{desc: "version absent", fn: normalizeVersion, in: "", want: NoVersion},
		{desc: "version not a number", fn: normalizeVersion, in: "vX", want: Other},
		{desc: "id", fn: normalizeName, in: "URL_INVALID", want: "URL_INVALID"},
		{desc: "outcome with underscore", fn: normalizeName, in: "bulkhead_full", want: "bulkhead_full"},
		{desc: "upstream with dash", fn: normalizeName, in: "data-api", want: "data-api"},
		{desc: "name empty", fn: normalizeName, in: "", want: Other},
		{desc: "name starting with a digit", fn: normalizeName, in: "001xx", want: Other},
		{desc: "name with a space", fn: normalizeName, in: "URL INVALID", want: Other},
		{desc: "name too long", fn: normalizeName, in: "A" + strings.Repeat("B", maxNameLen), want: Other},
		{desc: "state half-open", fn: normalizeState, in: "half-open", want: "half-open"},
		{desc: "state unknown", fn: normalizeState, in: "HALF_OPEN", want: Other},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.fn(tc.in))
		})
	}
}

func TestNormalizeStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		status int
		want   string
	}{
		{desc: "ok", status: 200, want: "200"},
		{desc: "lowest", status: 100, want: "100"},
		{desc: "highest", status: 599, want: "599"},
		{desc: "client went away before an answer", status: 0, want: "0"},
		{desc: "nginx-style 499 is kept", status: 499, want: "499"},
		{desc: "out of range", status: 600, want: "0"},
		{desc: "negative", status: -1, want: "0"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, normalizeStatus(tc.status))
		})
	}
}

func FuzzNormalizeRoute(f *testing.F) {
	for _, seed := range []string{
		"", "/", "/{version}/accounts", "/{version}/accounts/{accountId}", "/v1/accounts",
		"/{version:v[0-9]{1,3}}/x", "/{a{b}c}/", "/{}", "/{{}}", "/}{", "/{version}/query?q=1",
		"/\x00", "/{version}/\xff",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, route string) {
		got := NormalizeRoute(route)
		switch got {
		case UnmatchedRoute:
			assert.Empty(t, route)
			return
		case NonTemplateRoute:
			return
		}
		// A route kept as a label must be bounded and free of what marks a
		// raw request path.
		assert.Equal(t, route, got)
		assert.LessOrEqual(t, len(got), maxRouteLen)
		assert.True(t, strings.HasPrefix(got, "/"))
		assert.NotContains(t, got, "//")
		assert.False(t, strings.ContainsAny(got, "?#% \t\r\n\x00"), "route %q", got)
		first, _, _ := strings.Cut(got[1:], "/")
		assert.False(t, isVersion(first), "route %q starts with a literal version", got)
	})
}

func FuzzNormalizeName(f *testing.F) {
	for _, seed := range []string{"URL_INVALID", "accounts", "bulkhead_full", "", "1x", "a b", "é"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := normalizeName(name)
		if got == Other {
			return
		}
		assert.Equal(t, name, got)
		assert.LessOrEqual(t, len(got), maxNameLen)
		assert.False(t, strings.ContainsAny(got, " \"{}\\/\n"), "name %q", got)
	})
}
