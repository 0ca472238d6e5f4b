package reload_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Status names the serving configuration and keeps every counted reload,
// a refused one with each problem and its key path.
func TestStatusKeepsTheLastReloads(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 200)
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, configText(fake, "v0"))
	g := newGateway(t, path, fake)

	s := g.reloader.Status()
	assert.Equal(t, path, s.Path)
	assert.Len(t, s.Revision, 12)
	assert.Empty(t, s.Reloads)
	first := s.Revision
	served := g.reloader.Serving()

	writeFile(t, path, configText(fake, "v0")+"colour: red\n")
	require.Error(t, g.reloader.Reload(context.Background(), "SIGHUP"))
	writeFile(t, path, configText(fake, "v1", addedRoute))
	require.NoError(t, g.reloader.Reload(context.Background(), "file changed"))
	require.NoError(t, g.reloader.Reload(context.Background(), "SIGHUP"), "the same content again: not counted")

	s = g.reloader.Status()
	require.Len(t, s.Reloads, 2)
	applied, refused := s.Reloads[0], s.Reloads[1]
	assert.True(t, applied.Applied, "latest first")
	assert.Equal(t, "file changed", applied.Cause)
	assert.Equal(t, s.Revision, applied.Revision)
	assert.NotEqual(t, first, s.Revision)
	assert.Equal(t, applied.Time, s.LoadedAt)
	assert.False(t, refused.Applied)
	assert.Equal(t, "SIGHUP", refused.Cause)
	require.Len(t, refused.Problems, 1)
	assert.Contains(t, refused.Problems[0], "colour (line")
	assert.NotSame(t, served, g.reloader.Serving(), "Serving follows the swap")
	assert.Same(t, g.reloader.Serving().Config, g.reloader.Current())

	for range 30 {
		writeFile(t, path, "routes: [\n")
		_ = g.reloader.Reload(context.Background(), "SIGHUP")
		writeFile(t, path, configText(fake, "v1", addedRoute))
		_ = g.reloader.Reload(context.Background(), "SIGHUP")
	}
	assert.Len(t, g.reloader.Status().Reloads, 20, "bounded")
}
