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
)

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
