package main

import "syscall"

// raiseFileLimit raises the soft limit of open files to the hard limit, so
// that thousands of connections fit in the harness and in the processes it
// starts (which inherit it). It returns the limit in force.
func raiseFileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			return 0, err
		}
	}
	return l.Cur, nil
}
