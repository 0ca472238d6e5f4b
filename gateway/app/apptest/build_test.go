package apptest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/identity"
)

// TestImageBuildIsTheDockerfiles: the binary the cost tests build is the
// one the container image ships.
func TestImageBuildIsTheDockerfiles(t *testing.T) {
	t.Parallel()
	dockerfile, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "Dockerfile"))
	require.NoError(t, err)
	assert.Contains(t, string(dockerfile),
		fmt.Sprintf(`CGO_ENABLED=0 go build -tags %s -trimpath -ldflags="%s" `, ImageTags, ImageLDFlags))
}

func TestQuotaConfigDiffersByQuotaAndAllowanceOnly(t *testing.T) {
	t.Parallel()
	c := QuotaConfig()
	assert.Equal(t, strings.Count(AccountsConfig, "\n")+2, strings.Count(c, "\n"), "two lines more")
	env := map[string]string{"ACCOUNTS_URL": "http://127.0.0.1:1", "GATEWAY_LISTEN": "127.0.0.1:0", "GATEWAY_ADMIN_LISTEN": "127.0.0.1:0",
		"GATEWAY_JWT_SECRET": JWTSecret}
	cfg, err := config.Parse([]byte(c), func(k string) string { return env[k] })
	require.NoError(t, err)
	require.NoError(t, config.Validate(cfg))
	assert.Equal(t, int64(1e15), cfg.Auth.Quotas.Default.PerDay)
	assert.Equal(t, "10%", cfg.Upstreams["accounts"].Allowance.Reserve)
}

func TestTokensAreAcceptedByAccountsConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"ACCOUNTS_URL": "http://127.0.0.1:1", "GATEWAY_JWT_SECRET": JWTSecret}
	cfg, err := config.Parse([]byte(AccountsConfig), func(k string) string { return env[k] })
	require.NoError(t, err)
	require.NoError(t, config.Validate(cfg))
	require.Equal(t, config.AuthJWT, cfg.Auth.Mode, "the harness verifies a token on every request")
	a, err := identity.New(context.Background(), cfg.Auth)
	require.NoError(t, err)
	tokens, err := Tokens(3, time.Hour, time.Now())
	require.NoError(t, err)
	for i, tok := range tokens {
		r := httptest.NewRequest(http.MethodGet, "/v2/accounts", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		id, err := a.Authenticate(r)
		require.NoError(t, err)
		assert.Equal(t, UserID(i), id.UserID)
	}
}
