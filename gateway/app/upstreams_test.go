package app

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// TestResolveSandboxFlavours: "sandbox" and "sandbox:<flavour>" are
// resolved by the sandbox with the upstream's name and flavour; a flavour
// the sandbox refuses is an error under the upstream's url key.
func TestResolveSandboxFlavours(t *testing.T) {
	t.Parallel()
	var asked []string
	set := NewUpstreamSet(nil, func(name, flavour string) (string, error) {
		asked = append(asked, name+"|"+flavour)
		if flavour == "nope" {
			return "", errors.New("no such flavour")
		}
		return "http://127.0.0.1:1/" + name + "-" + flavour, nil
	})
	ups, err := set.Resolve(map[string]upstreams.Settings{"accounts": {URL: "sandbox:original"}})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:1/accounts-original", ups["accounts"].BaseURL)
	ups, err = set.Resolve(map[string]upstreams.Settings{"workflow": {URL: "sandbox"}, "data": {URL: "https://data.example"}})
	require.NoError(t, err)
	assert.Equal(t, "https://data.example", ups["data"].BaseURL)
	_, err = set.Resolve(map[string]upstreams.Settings{"accounts": {URL: "sandbox:nope"}})
	assert.EqualError(t, err, "upstreams.accounts.url: no such flavour")
	assert.Equal(t, []string{"accounts|original", "workflow|", "accounts|nope"}, asked)
}
