package spool

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenSweepsWhatDeadProcessesLeft(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A dead process's directory (its lock held by nobody), a lock left
	// without its directory, and a loose file of the layout before.
	dead := filepath.Join(root, "p41-123")
	require.NoError(t, os.MkdirAll(dead, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dead, "upload-1"), make([]byte, 1000), 0o600))
	require.NoError(t, os.WriteFile(dead+lockName, nil, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "p42-9"+lockName), nil, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "upload-77"), make([]byte, 24), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("kept"), 0o600))

	// A live process's directory: a Spool opened before, still open.
	live, swept, err := Open(root, 0)
	require.NoError(t, err)
	assert.Equal(t, Swept{Dirs: 1, Files: 2, Bytes: 1024}, swept)
	t.Cleanup(func() { _ = live.Close() })
	liveFile := filepath.Join(live.Dir(), "upload-live")
	require.NoError(t, os.WriteFile(liveFile, []byte("in flight"), 0o600))

	s, swept, err := Open(root, 0)
	require.NoError(t, err)
	assert.Equal(t, Swept{}, swept, "the live directory is left alone")
	require.NoError(t, s.Close())

	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{lockName, "notes.txt", filepath.Base(live.Dir()), filepath.Base(live.Dir()) + lockName}, names,
		"the dead directory, the lone lock and the loose file are gone; the live directory and the closed one's are not")
	assert.FileExists(t, liveFile, "a live process's upload is never swept")
}

func TestOpenCountsWhatItSwept(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dead := filepath.Join(root, "p7-1")
	require.NoError(t, os.MkdirAll(dead, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dead, "upload-1"), make([]byte, 1000), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dead, "upload-2"), make([]byte, 500), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(root, "upload-3"), make([]byte, 24), 0o600))
	s, swept, err := Open(root, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	assert.Equal(t, Swept{Dirs: 1, Files: 3, Bytes: 1524}, swept)
	assert.NoDirExists(t, dead)
}

func TestCloseRemovesTheProcessDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	s, _, err := Open(root, 0)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir(), "upload-1"), []byte("x"), 0o600))
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "twice is harmless")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, lockName, entries[0].Name())
}

func TestAdmitAndReserve(t *testing.T) {
	t.Parallel()
	s, _, err := Open(t.TempDir(), 1000)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })

	a, err := s.Admit("/files", 2, 600)
	require.NoError(t, err)
	_, err = s.Admit("/files", 2, 500)
	assert.ErrorIs(t, err, ErrNoRoom, "600 + 500 > 1000")
	b, err := s.Admit("/files", 2, -1)
	require.NoError(t, err, "unannounced: admitted, accounted as it is written")
	_, err = s.Admit("/files", 2, 1)
	assert.ErrorIs(t, err, ErrBusy, "two in flight")
	other, err := s.Admit("/other", 2, 1)
	require.NoError(t, err, "another route has its own count")
	other.Release()

	require.NoError(t, a.Reserve(600), "within what it announced")
	require.NoError(t, b.Reserve(300))
	assert.Equal(t, int64(900), s.Used())
	assert.ErrorIs(t, b.Reserve(200), ErrFull, "past the budget")
	require.NoError(t, b.Reserve(100))
	assert.Equal(t, int64(1000), s.Used())

	a.Release()
	a.Release()
	b.Release()
	assert.Equal(t, int64(0), s.Used())
	c, err := s.Admit("/files", 2, 1000)
	require.NoError(t, err, "everything given back")
	c.Release()
}
