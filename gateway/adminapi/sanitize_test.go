package adminapi

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSafeURLShowsNoCredential(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://api.example.com/services", "https://api.example.com/services"},
		{"https://user:pass@api.example.com/x", "https://api.example.com/x"},
		{"https://user@api.example.com", "https://api.example.com"},
		{"https://logs.example.com/ingest?sig=abc&sv=2024&api_key=k", "https://logs.example.com/ingest?api_key=***&sig=***&sv=***"},
		{"https://h.example.com/p?token", "https://h.example.com/p?token=***"},
		{"https://h.example.com/p#frag-secret", "https://h.example.com/p"},
		{"sandbox", "sandbox"},
		{"sandbox:org2", "sandbox:org2"},
		{"not a url with password=x", "(not a URL)"},
		{"://bad", "(not a URL)"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, safeURL(tt.in), tt.in)
	}
}

// FuzzSafeURL: no user info and no query value of the input survives.
func FuzzSafeURL(f *testing.F) {
	for _, seed := range []string{"https://u:secretpw@h.example.com/p?key=secretvalue", "http://h/?a=1&a=2", "sandbox", "//user:pw@host/x",
		"https://h.example.com/p?%zz=1", "https://[::1]:9/p?token=abcdef#frag"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		out := safeURL(raw)
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return
		}
		if p, ok := u.User.Password(); ok && len(p) >= 4 && strings.Contains(out, "@") {
			t.Fatalf("%q: user info kept in %q", raw, out)
		}
		if shown, err := url.Parse(out); err == nil {
			if shown.User != nil {
				t.Fatalf("%q: user info kept in %q", raw, out)
			}
			for name, values := range shown.Query() {
				for _, v := range values {
					if v != masked {
						t.Fatalf("%q: query %s=%q shown in %q", raw, name, v, out)
					}
				}
			}
		}
	})
}
