package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, yaml string
		want       Contact
		problems   []string
	}{
		{desc: "default: a name only", yaml: "{}", want: Contact{Name: "API support"}},
		{desc: "all three", yaml: `{name: Platform team, url: "https://api.example.com/support", email: api@example.com}`,
			want: Contact{Name: "Platform team", URL: "https://api.example.com/support", Email: "api@example.com"}},
		{desc: "a url that is not absolute http", yaml: `{url: "support.example.com"}`,
			problems: []string{`server.contact.url: must be an absolute http or https URL, not "support.example.com"`}},
		{desc: "an address with a display name", yaml: `{email: "Support <api@example.com>"}`,
			problems: []string{`server.contact.email: must be an address such as api@example.com, not "Support <api@example.com>"`}},
		{desc: "not an address", yaml: `{email: "api at example.com"}`,
			problems: []string{`server.contact.email: must be an address such as api@example.com, not "api at example.com"`}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse([]byte("versions: [v1]\nserver: {contact: "+tt.yaml+"}\n"), env(nil))
			require.NoError(t, err)
			verr := Validate(cfg)
			if tt.problems == nil {
				assert.NoError(t, verr)
				assert.Equal(t, tt.want, cfg.Server.Contact)
				return
			}
			require.Error(t, verr)
			for _, p := range tt.problems {
				assert.Contains(t, verr.Error(), p)
			}
		})
	}
}
