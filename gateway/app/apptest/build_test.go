package apptest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
