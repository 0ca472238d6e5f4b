//go:build unix

package server

import "syscall"

// RaiseFileLimit raises the process's soft limit of open files to its hard
// limit and returns both as they stand after. Go's runtime raises it at
// start on most systems already; doing it here makes the start independent
// of that and gives the figures for the log.
func RaiseFileLimit() (soft, hard uint64, err error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, 0, err
	}
	if l.Cur < l.Max {
		raised := l
		raised.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
			return uint64(l.Cur), uint64(l.Max), err
		}
		l = raised
	}
	return uint64(l.Cur), uint64(l.Max), nil
}

// fileLimit is the soft limit of open files, 0 when it cannot be read.
func fileLimit() uint64 {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0
	}
	return uint64(l.Cur)
}
