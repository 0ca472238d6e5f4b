// Package spool owns the directory where uploads in progress wait on disk,
// and the bounds on them: uploads in flight per route, and bytes spooled at
// once by the process.
//
// Each gateway process spools into a directory of its own under the root,
// named after its pid, beside a lock file (the directory's name plus
// ".lock") it keeps locked (flock) while it lives. Open, at start, removes what dead processes left: every directory
// whose lock nobody holds, and the loose upload-* files of the layout
// before it. A live process's directory is never touched, so two gateways
// may share one data directory. A crash (kill -9, an OOM kill) leaves its
// directory behind until the next start; a clean Close removes it.
package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// lockName is the root's lock file; a process directory's lock file is its
// name plus lockName.
const lockName = ".lock"

// legacyPrefix names the spool files of the layout without per-process
// directories, spooled directly into the root.
const legacyPrefix = "upload-"

// Errors of Admit and Lease.Reserve.
var (
	// ErrBusy: the route's uploads in flight are at their cap. Retrying
	// later may succeed.
	ErrBusy = errors.New("spool: the route's uploads in flight are at their cap")
	// ErrNoRoom: the upload's announced size does not fit in what is left
	// of the budget now. Retrying later may succeed.
	ErrNoRoom = errors.New("spool: the upload does not fit in what is left of the spool budget")
	// ErrFull: the budget ran out while an upload of unannounced size was
	// spooled.
	ErrFull = errors.New("spool: the spool budget is spent")
)

// Swept is what Open removed.
type Swept struct {
	// Dirs are the directories of dead processes, Files every file removed
	// (theirs and loose legacy ones), Bytes the files' sizes.
	Dirs, Files int
	Bytes       int64
	// Skipped says why directories of other processes were left alone (no
	// file locks on this system); empty when they were swept.
	Skipped string
}

// Spool is one process's upload spool. Safe for concurrent use.
type Spool struct {
	dir      string
	lock     *os.File
	maxBytes int64
	used     atomic.Int64
	mu       sync.Mutex
	inFlight map[string]int
	closed   sync.Once
}

// Open makes root when missing, sweeps it of what dead processes left (see
// the package doc) and claims a directory of its own in it. maxBytes bounds
// the bytes this process spools at once (Lease.Reserve); 0 means no bound.
// Call it once per process, at start: the sweep is safe at any time, but a
// process needs one directory. The caller must Close the Spool.
func Open(root string, maxBytes int64) (*Spool, Swept, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, Swept{}, fmt.Errorf("creating the upload spool %s: %w", root, err)
	}
	// The root's lock makes sweep-and-claim one step among processes: a
	// directory is never seen between its creation and its lock.
	guard, err := lock(filepath.Join(root, lockName), true)
	if err != nil && !errors.Is(err, errNoLocks) {
		return nil, Swept{}, fmt.Errorf("locking the upload spool %s: %w", root, err)
	}
	defer unlock(guard)
	swept := sweep(root, errors.Is(err, errNoLocks))
	dir, err := os.MkdirTemp(root, fmt.Sprintf("p%d-", os.Getpid()))
	if err != nil {
		return nil, swept, fmt.Errorf("creating the upload spool directory: %w", err)
	}
	own, err := lock(dir+lockName, false)
	if err != nil && !errors.Is(err, errNoLocks) {
		_ = os.RemoveAll(dir)
		return nil, swept, fmt.Errorf("locking the upload spool directory: %w", err)
	}
	return &Spool{dir: dir, lock: own, maxBytes: maxBytes, inFlight: map[string]int{}}, swept, nil
}

// sweep removes the directories of dead processes with their lock files,
// lock files left without a directory, and the loose legacy files; without
// locks (noLocks) it leaves directories alone.
func sweep(root string, noLocks bool) Swept {
	var s Swept
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		switch {
		case e.Name() == lockName:
		case strings.HasPrefix(e.Name(), legacyPrefix) && !e.IsDir():
			if info, err := e.Info(); err == nil && os.Remove(path) == nil {
				s.Files++
				s.Bytes += info.Size()
			}
		case noLocks:
			if e.IsDir() {
				s.Skipped = "file locks are not supported here: directories of other processes were left in place"
			}
		case e.IsDir():
			held, err := lock(path+lockName, false)
			if errors.Is(err, errLocked) {
				continue // a live process's
			}
			s.Dirs++
			_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if info, err := d.Info(); err == nil {
						s.Files++
						s.Bytes += info.Size()
					}
				}
				return nil
			})
			_ = os.RemoveAll(path)
			_ = os.Remove(path + lockName)
			unlock(held)
		case strings.HasSuffix(e.Name(), lockName):
			// A lock whose directory is gone: its process died while
			// closing, or the directory was removed by hand.
			if _, err := os.Stat(strings.TrimSuffix(path, lockName)); errors.Is(err, fs.ErrNotExist) {
				if held, err := lock(path, false); err == nil {
					_ = os.Remove(path)
					unlock(held)
				}
			}
		}
	}
	return s
}

// Dir is this process's spool directory.
func (s *Spool) Dir() string { return s.dir }

// Used is the bytes reserved by the uploads in flight.
func (s *Spool) Used() int64 { return s.used.Load() }

// Close removes the process's directory and releases its lock. Uploads
// must be finished: it runs after the drain.
func (s *Spool) Close() error {
	var err error
	s.closed.Do(func() {
		err = os.RemoveAll(s.dir)
		_ = os.Remove(s.dir + lockName)
		unlock(s.lock)
	})
	return err
}

// Admit lets one upload of route in, or refuses it: ErrBusy when route has
// maxInFlight uploads in flight already (0: no cap), ErrNoRoom when
// announced bytes (the request's Content-Length; negative when unknown) do
// not fit in what is left of the budget. The admitted upload's Lease
// holds announced bytes of the budget and must be released.
func (s *Spool) Admit(route string, maxInFlight int, announced int64) (*Lease, error) {
	s.mu.Lock()
	if maxInFlight > 0 && s.inFlight[route] >= maxInFlight {
		s.mu.Unlock()
		return nil, ErrBusy
	}
	s.inFlight[route]++
	s.mu.Unlock()
	l := &Lease{s: s, route: route}
	if announced > 0 {
		if !s.take(announced) {
			l.Release()
			return nil, ErrNoRoom
		}
		l.held = announced
	}
	return l, nil
}

// take adds n to the bytes used if the budget allows it.
func (s *Spool) take(n int64) bool {
	for {
		used := s.used.Load()
		if s.maxBytes > 0 && used+n > s.maxBytes {
			return false
		}
		if s.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// Lease is one admitted upload's share of the spool. Reserve and Release
// are called by the upload's goroutine.
type Lease struct {
	s          *Spool
	route      string
	held, used int64
	released   bool
}

// Reserve accounts for n more bytes written to the spool: within what was
// announced it always succeeds; past it the budget must have room, else
// ErrFull.
func (l *Lease) Reserve(n int64) error {
	if l.used+n > l.held {
		more := l.used + n - l.held
		if !l.s.take(more) {
			return ErrFull
		}
		l.held += more
	}
	l.used += n
	return nil
}

// Release gives the lease's bytes and its in-flight place back. It may be
// called more than once.
func (l *Lease) Release() {
	if l.released {
		return
	}
	l.released = true
	l.s.used.Add(-l.held)
	l.s.mu.Lock()
	if l.s.inFlight[l.route]--; l.s.inFlight[l.route] <= 0 {
		delete(l.s.inFlight, l.route)
	}
	l.s.mu.Unlock()
}
