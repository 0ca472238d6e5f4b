package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/openapi"
	"github.com/restgate/gateway/gateway/routes"
)

// TestShippedOpenAPIDocuments renders every version's document of the
// shipped config.yaml, as shipped and with JWT, always200 errors and a rate
// limit (whose operations answer no 4XX: redocly warns, as it should), and validates each with kin-openapi. With OPENAPI_DUMP_DIR set it
// writes them there as openapi_<variant>_<version>.json, for .ci/run to
// lint with @redocly/cli.
func TestShippedOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	variants := map[string]map[string]string{
		"shipped": nil,
		"jwt-always200": {"GATEWAY_AUTH_MODE": "jwt", "GATEWAY_JWT_SECRET": strings.Repeat("s", 32),
			"GATEWAY_ERROR_STATUS_MODE": "always200", "GATEWAY_RATE_LIMIT_RPS": "10", "GATEWAY_RATE_LIMIT_BURST": "10"},
	}
	dir := os.Getenv("OPENAPI_DUMP_DIR")
	for name, env := range variants {
		cfg, table, err := routes.Load(filepath.Join("..", "..", "config.yaml"), func(k string) string { return env[k] })
		require.NoError(t, err, name)
		for _, v := range table.Versions {
			b, err := json.MarshalIndent(openapi.Document(table, Contracts(cfg), openapi.SettingsOf(cfg), v), "", "  ")
			require.NoError(t, err)
			doc, err := openapi3.NewLoader().LoadFromData(b)
			require.NoError(t, err, v)
			assert.NoError(t, doc.Validate(context.Background()), "%s %s", name, v)
			for component, s := range doc.Components.Schemas {
				if len(s.Value.Properties) > 0 && !slices.Contains([]string{"Envelope", "ErrorEnvelope", "Page", "ResponseCode"}, component) {
					assert.NotNil(t, s.Value.AdditionalProperties.Has, "%s %s: %s says whether it takes other members", name, v, component)
				}
			}
			if dir != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi_"+name+"_"+v+".json"), b, 0o644))
			}
		}
	}
}
