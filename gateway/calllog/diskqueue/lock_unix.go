//go:build unix

package diskqueue

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive lock on path (created if missing), held until
// the file is closed, so two processes never share a queue directory.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("diskqueue: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("diskqueue: %s is in use by another process", path)
		}
		return nil, fmt.Errorf("diskqueue: lock %s: %w", path, err)
	}
	return f, nil
}

// syncDir makes a new file's directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
