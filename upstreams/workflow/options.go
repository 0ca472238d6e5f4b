package workflow

import (
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// OptionEngineVersion is the option (upstreams.<name>.options) that pins
// the engine's version.
const OptionEngineVersion = "engineVersion"

// Options are what the adapter is built with. The zero value reads the
// engine's version from the engine and logs nothing.
type Options struct {
	// EngineVersion pins the engine's version (restvar.ParseVersion), for
	// an engine that hides GET /management/engine or answers it wrongly:
	// the version is then never read. Zero reads it (see Client).
	EngineVersion restvar.Version
	// Name is the configured upstream's name, for the log. Default
	// Upstream.
	Name string
	// Logger receives the version read (info, when it changes) and the
	// warning, once, that the engine hides it. Nil logs nothing.
	Logger *slog.Logger
	// Now is the clock that ages a version read; nil is time.Now.
	Now func() time.Time
}

// ParseOptions reads a workflow upstream's options strictly: engineVersion
// (a version such as 6.5.0 or 6.5.0.6; empty or absent reads it from the
// engine). An unknown key or a bad version is an error whose Path is the
// key, so that the caller can report it under upstreams.<name>.options.
func ParseOptions(m map[string]string) (Options, []*upstreams.FieldError) {
	var o Options
	var errs []*upstreams.FieldError
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case OptionEngineVersion:
			if m[k] == "" {
				continue
			}
			v, err := restvar.ParseVersion(m[k])
			if err != nil {
				errs = append(errs, &upstreams.FieldError{Path: k, Problem: err.Error()})
				continue
			}
			o.EngineVersion = v
		default:
			errs = append(errs, &upstreams.FieldError{Path: k, Problem: "unknown option of a workflow upstream; known: " + OptionEngineVersion})
		}
	}
	if len(errs) > 0 {
		return Options{}, errs
	}
	return o, nil
}
