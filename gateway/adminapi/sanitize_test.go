package adminapi

import (
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
