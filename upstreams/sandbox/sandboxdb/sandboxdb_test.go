package sandboxdb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "not", "yet")
	db, err := Open(dir)
	require.NoError(t, err)
	_, err = db.Exec(`CREATE TABLE kept (v TEXT)`)
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO kept (v) VALUES ('x')`)
	require.NoError(t, err)
	var mode string
	require.NoError(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	assert.Equal(t, "wal", mode)
	require.NoError(t, db.Close())

	_, err = os.Stat(filepath.Join(dir, File))
	require.NoError(t, err, "the data dir and the file are created")
	db, err = Open(dir)
	require.NoError(t, err)
	defer db.Close()
	var v string
	require.NoError(t, db.QueryRow(`SELECT v FROM kept`).Scan(&v))
	assert.Equal(t, "x", v, "a reopened file keeps its rows")
}

func TestOpenRefusesAFileAsDir(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "plain")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := Open(file)
	assert.ErrorContains(t, err, "creating data dir")
}
