//go:build !unix

package spool

import (
	"errors"
	"os"
)

var (
	errLocked  = errors.New("spool: locked by another process")
	errNoLocks = errors.New("spool: file locks are not supported")
)

// lock is not available here: Open then leaves other processes'
// directories alone.
func lock(string, bool) (*os.File, error) { return nil, errNoLocks }

func unlock(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}
