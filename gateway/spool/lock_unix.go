//go:build unix

package spool

import (
	"errors"
	"os"
	"syscall"
)

// errLocked: another process holds the lock. errNoLocks: this system has no
// file locks.
var (
	errLocked  = errors.New("spool: locked by another process")
	errNoLocks = errors.New("spool: file locks are not supported")
)

// lock opens (creating) path and locks it exclusively: waiting for it when
// wait is set, else failing with errLocked when it is held. The lock lives
// as long as the returned file is open; flock locks belong to the open
// file, so even the same process cannot take one twice.
func lock(path string, wait bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

// unlock releases a lock taken by lock; nil does nothing.
func unlock(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}
