package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/openapi"
	"github.com/restgate/gateway/gateway/routes"
)

// TestShippedOpenAPIDocuments renders every version's document of the
// shipped config.yaml and validates it with kin-openapi. With
// OPENAPI_DUMP_DIR set it writes them there as openapi_<version>.json,
// for .ci/run to lint with @redocly/cli.
func TestShippedOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	cfg, table, err := routes.Load(filepath.Join("..", "..", "config.yaml"), func(string) string { return "" })
	require.NoError(t, err)
	dir := os.Getenv("OPENAPI_DUMP_DIR")
	for _, v := range table.Versions {
		b, err := json.MarshalIndent(openapi.Document(table, Contracts(cfg), openapi.SettingsOf(cfg), v), "", "  ")
		require.NoError(t, err)
		doc, err := openapi3.NewLoader().LoadFromData(b)
		require.NoError(t, err, v)
		assert.NoError(t, doc.Validate(context.Background()), v)
		if dir != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi_"+v+".json"), b, 0o644))
		}
	}
}
