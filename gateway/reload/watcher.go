package reload

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// configMapLink is the symlink a Kubernetes ConfigMap volume swaps
// atomically: config.yaml -> ..data/config.yaml, ..data -> ..2026_...
const configMapLink = "..data"

// DefaultDebounce is how long the Watcher waits after the last event before
// it reads the file: an editor's save or a ConfigMap swap is a burst of
// events, and one reload should follow it.
const DefaultDebounce = 250 * time.Millisecond

// Watcher watches the config file's directory, not the file: editors replace
// the file by a rename and ConfigMaps swap a symlink, and a watch on the old
// file would see neither. Create it with NewWatcher, run it with Run.
type Watcher struct {
	path     string
	debounce time.Duration
	onChange func()
	logger   *slog.Logger
	fsw      *fsnotify.Watcher
	last     [sha256.Size]byte
}

// NewWatcher watches the directory of path. onChange runs (on the Watcher's
// goroutine, one call at a time) when events concerning the file or the
// ..data link have settled for debounce (DefaultDebounce when 0) and the
// file's content differs from what it was when last read; events that change
// nothing (a touch, a rewrite of the same bytes) are skipped. A directory
// that cannot be watched is ErrNotWatched.
func NewWatcher(path string, debounce time.Duration, onChange func(), logger *slog.Logger) (*Watcher, error) {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotWatched, err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotWatched, err)
	}
	if err := fsw.Add(filepath.Dir(abs)); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrNotWatched, filepath.Dir(abs), err)
	}
	w := &Watcher{path: abs, debounce: debounce, onChange: onChange, logger: logger, fsw: fsw}
	w.last, _ = w.hash()
	return w, nil
}

// Run delivers changes until ctx is done, then stops watching.
func (w *Watcher) Run(ctx context.Context) {
	defer w.fsw.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if w.concerns(ev) {
				timer.Reset(w.debounce)
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			// An overflow lost events: read the file anyway.
			w.logger.Warn("config watch error", "path", w.path, "err", err)
			timer.Reset(w.debounce)
		case <-timer.C:
			w.settled()
		}
	}
}

// concerns reports whether ev may have changed what path reads.
func (w *Watcher) concerns(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	name := filepath.Base(ev.Name)
	return filepath.Clean(ev.Name) == w.path || name == configMapLink
}

func (w *Watcher) settled() {
	sum, err := w.hash()
	if err != nil {
		// Mid-swap or deleted: a later event brings the new file; a reload
		// now would only be refused.
		w.logger.Warn("config file unreadable; keeping the current config", "path", w.path, "err", err)
		return
	}
	if sum == w.last {
		return
	}
	w.last = sum
	w.onChange()
}

func (w *Watcher) hash() ([sha256.Size]byte, error) {
	data, err := os.ReadFile(w.path)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(data), nil
}
