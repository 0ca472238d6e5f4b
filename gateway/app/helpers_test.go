package app

import (
	"context"
	"log/slog"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/identity"
	"github.com/restgate/gateway/gateway/routes"
)

// tabled validates cfg and builds its route table, as routes.Load does for
// a file, for the configs the tests make in memory.
func tabled(tb testing.TB, cfg *config.Config) *routes.Table {
	tb.Helper()
	require.NoError(tb, config.Validate(cfg))
	table, err := routes.Build(cfg)
	require.NoError(tb, err)
	return table
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func testCatalog() *envelope.Catalog { return envelope.NewCatalog() }

func noneAuth(t *testing.T) identity.Authenticator {
	t.Helper()
	a, err := identity.New(context.Background(), config.Auth{Mode: config.AuthNone})
	require.NoError(t, err)
	return a
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return f
}
