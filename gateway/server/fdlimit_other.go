//go:build !unix

package server

// RaiseFileLimit does nothing where there is no RLIMIT_NOFILE; both limits
// are reported as 0 (unknown).
func RaiseFileLimit() (soft, hard uint64, err error) { return 0, 0, nil }

// fileLimit is 0: unknown.
func fileLimit() uint64 { return 0 }
