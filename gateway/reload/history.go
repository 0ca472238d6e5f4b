package reload

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// historySize is how many reload attempts Status keeps.
const historySize = 20

// Attempt is one reload that was counted: applied or refused.
type Attempt struct {
	Time time.Time `json:"time"`
	// Cause is what asked for it ("SIGHUP", "file changed").
	Cause string `json:"cause"`
	// Applied says whether the new configuration replaced the old.
	Applied bool `json:"applied"`
	// Revision is the digest of the file content it loaded ("" when the
	// file could not be read).
	Revision string `json:"revision"`
	// Problems are every problem of a refused configuration, each with
	// its key path, as `gateway check` prints them.
	Problems []string `json:"problems"`
	// Restart lists the changed keys that wait for a restart.
	Restart []string `json:"restart"`
}

// Status is the configuration serving now and the last reloads.
type Status struct {
	// Revision identifies the serving configuration: the first 12 hex
	// digits of its file's SHA-256.
	Revision string `json:"revision"`
	// LoadedAt is when it started serving.
	LoadedAt time.Time `json:"loadedAt"`
	// Path is the config file.
	Path string `json:"path"`
	// Reloads are the last reload attempts, latest first.
	Reloads []Attempt `json:"reloads"`
}

// revision names a file content by its digest.
func revision(sum [sha256.Size]byte) string { return hex.EncodeToString(sum[:6]) }

// Status reports the serving configuration and the last reloads. It does
// not wait for a reload under way.
func (r *Reloader) Status() Status {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	s := r.status
	s.Reloads = make([]Attempt, len(r.status.Reloads))
	for i, a := range r.status.Reloads {
		s.Reloads[len(s.Reloads)-1-i] = a
	}
	return s
}

// record keeps a counted reload attempt.
func (r *Reloader) record(a Attempt) {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	if a.Applied {
		r.status.Revision, r.status.LoadedAt = a.Revision, a.Time
	}
	if a.Problems == nil {
		a.Problems = []string{}
	}
	if a.Restart == nil {
		a.Restart = []string{}
	}
	h := r.status.Reloads
	if len(h) == historySize {
		h = append(h[:0], h[1:]...)
	}
	r.status.Reloads = append(h, a)
}
