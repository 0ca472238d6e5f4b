//go:build !unix

package diskqueue

import (
	"fmt"
	"os"
)

// lockDir opens the lock file; without flock the directory is not
// protected from a second process.
func lockDir(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("diskqueue: %w", err)
	}
	return f, nil
}

func syncDir(string) error { return nil }
