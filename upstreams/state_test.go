package upstreams

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client's state says what its token source did, never the token.
func TestStateShowsTheTokenWithoutIt(t *testing.T) {
	t.Parallel()
	org := newFakeOrg(t)
	c, _ := newTokenClient(t, org.srv.URL, org.oauth(t, FlowClientCredentials))
	s := c.State()
	require.NotNil(t, s.Token)
	assert.Equal(t, TokenState{Flow: FlowClientCredentials}, *s.Token, "nothing fetched yet")
	assert.Equal(t, "closed", s.Breaker)
	assert.Positive(t, s.Limit)
	assert.Zero(t, s.InFlight)

	before := time.Now()
	_, _, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/x", "")
	require.NoError(t, err)
	tok := c.State().Token
	assert.True(t, tok.Held)
	assert.False(t, tok.Refreshed.Before(before))
	assert.True(t, tok.Expiry.IsZero(), "Salesforce states no expiry")
	assert.Empty(t, tok.LastError)

	org.mu.Lock()
	org.failed = true
	org.mu.Unlock()
	org.expire()
	_, _, err = fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/x", "")
	require.Error(t, err)
	tok = c.State().Token
	assert.False(t, tok.Held, "the refused token was dropped")
	assert.Contains(t, tok.LastError, "invalid_grant")
	assert.False(t, tok.LastErrorAt.IsZero())
	for _, secret := range []string{"consumer-secret", "00Dxx0000001gPL", "Bearer"} {
		assert.False(t, strings.Contains(tok.LastError, secret), "the state never holds %q", secret)
	}
}

func TestStateWithoutOAuth(t *testing.T) {
	t.Parallel()
	c, err := NewClient("plain", testSettings("http://127.0.0.1:1"), nil)
	require.NoError(t, err)
	s := c.State()
	assert.Nil(t, s.Token)
	assert.True(t, s.Adaptive, "the adaptive limit is the default")
}
