package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/restgate/gateway/gateway/config"
)

// build is what a binary knows of itself (debug.ReadBuildInfo).
type build struct {
	// Version is the module version ("v1.4.0"), or "(devel)" for a build
	// from a work tree (go build, go run).
	Version string
	// Revision is the VCS revision, "" when the build carries none (go run,
	// go test, -buildvcs=false, or a tree outside git).
	Revision string
	// Modified is set when the work tree had uncommitted changes.
	Modified bool
	// Time is the revision's commit time (RFC 3339), "" when unknown.
	Time      string
	GoVersion string
}

// buildOf reads bi, which may be nil (a binary built without module
// support).
func buildOf(bi *debug.BuildInfo) build {
	b := build{Version: "(devel)", GoVersion: "unknown"}
	if bi == nil {
		return b
	}
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	b.GoVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "vcs.time":
			b.Time = s.Value
		}
	}
	return b
}

// buildInfo is this binary's version, revision ("unknown" when it carries
// none) and Go version, for the gateway_build_info metric.
func buildInfo() (version, revision, goVersion string) {
	bi, _ := debug.ReadBuildInfo()
	b := buildOf(bi)
	revision = b.Revision
	if revision == "" {
		revision = "unknown"
	} else if b.Modified {
		revision += "-modified"
	}
	return b.Version, revision, b.GoVersion
}

// versionString is what `gateway version` prints: everything bi says, and
// what it lacks said plainly.
func versionString(bi *debug.BuildInfo) string {
	b := buildOf(bi)
	var s strings.Builder
	fmt.Fprintf(&s, "gateway %s", b.Version)
	switch {
	case b.Revision != "":
		fmt.Fprintf(&s, ", revision %s", b.Revision)
		if b.Modified {
			s.WriteString(" with uncommitted changes")
		}
		if b.Time != "" {
			fmt.Fprintf(&s, " of %s", b.Time)
		}
	default:
		s.WriteString(", no VCS revision (built by go run or go test, with -buildvcs=false, or outside a git checkout)")
	}
	fmt.Fprintf(&s, ", %s", b.GoVersion)
	return s.String()
}

// printFailure writes why a command failed: every problem of the config
// file at path, one a line, or the one error.
func printFailure(w io.Writer, path string, err error) {
	var list config.ProblemList
	if errors.As(err, &list) {
		fmt.Fprint(w, "gateway: ")
		printProblems(w, path, err)
		return
	}
	fmt.Fprintf(w, "gateway: %v\n", err)
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
