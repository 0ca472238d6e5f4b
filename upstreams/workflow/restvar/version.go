package restvar

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// CurrentRelease is the newest engine release whose converters this package
// knows: what the sandbox's engine reports, and the version every type of
// Types is converted by.
const CurrentRelease = "8.0.0"

// Version is a workflow engine's version: the text GET /management/engine
// answers (EngineInfoResponse.version), or the one an operator pins.
//
// Engines before 6.6.0 answer their database schema version
// (ProcessEngine.VERSION, FlowableVersions.CURRENT_VERSION), four numbers
// that are not always the release's: 6.3.0 answers "6.3.0.1", 6.4.2
// "6.5.0.1", 6.5.0 "6.5.0.6". From 6.6.0 the engine answers its jar's
// Implementation-Version, the release itself ("6.6.0", "8.0.0"), with a
// qualifier on milestones and snapshots ("7.0.0.M1", "7.2.0-SNAPSHOT").
// Four numbers are therefore compared with the schema version each
// converter arrived at, three (or fewer) with its release; a qualified
// version counts as before its release. The zero Version is no version.
type Version struct {
	num    [4]int
	schema bool // four numbers: a schema version
	pre    bool // a qualifier follows the numbers
	text   string
}

// maxVersionText bounds a version's text; an engine's is a dozen bytes.
const maxVersionText = 64

// ErrVersion is in the chain of ParseVersion's errors.
var ErrVersion = errors.New("not a Flowable engine version")

// ParseVersion reads an engine version: two to four dot-separated numbers
// (6.5, 6.5.0, 6.5.0.6), optionally followed by a qualifier after a dot or
// a hyphen (7.0.0.M1, 7.2.0-SNAPSHOT). Surrounding space is ignored.
func ParseVersion(s string) (Version, error) {
	text := strings.TrimSpace(s)
	bad := func(why string) (Version, error) {
		return Version{}, fmt.Errorf("%w: %q %s (like 6.5.0, 6.5.0.6 or 8.0.0)", ErrVersion, clipText(text), why)
	}
	if text == "" {
		return bad("is empty")
	}
	if len(text) > maxVersionText {
		return bad(fmt.Sprintf("is longer than %d bytes", maxVersionText))
	}
	v := Version{text: text}
	rest, n := text, 0
	for n < 4 {
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if end == 0 || end > 4 {
			break
		}
		v.num[n], _ = strconv.Atoi(rest[:end])
		n++
		rest = rest[end:]
		if len(rest) == 0 || rest[0] != '.' {
			break
		}
		if n < 4 && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9' {
			rest = rest[1:]
		} else {
			break
		}
	}
	if n < 2 {
		return bad("does not start with major.minor numbers")
	}
	if rest != "" {
		if rest[0] != '.' && rest[0] != '-' || len(rest) == 1 {
			return bad("has something other than a qualifier after its numbers")
		}
		for _, r := range rest[1:] {
			if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '.' || r == '-' || r == '_') {
				return bad("has a qualifier of other than letters, digits, dots, hyphens and underscores")
			}
		}
		v.pre = true
	}
	v.schema = n == 4
	return v, nil
}

func clipText(s string) string {
	if len(s) > maxVersionText {
		return s[:maxVersionText] + "..."
	}
	return s
}

// String is the version as it was given.
func (v Version) String() string { return v.text }

// IsZero reports whether v is no version.
func (v Version) IsZero() bool { return v.text == "" }

// since is where something arrived in the engine: the release, and the
// schema version the engine reported when it arrived (see Version).
type since struct {
	release [3]int
	schema  [4]int
}

// reaches reports whether an engine of version v has what arrived at s.
func (v Version) reaches(s since) bool {
	if v.schema {
		return compare(v.num[:], s.schema[:]) >= 0
	}
	c := compare(v.num[:3], s.release[:])
	return c > 0 || c == 0 && !v.pre
}

func compare(a, b []int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (s since) String() string {
	return fmt.Sprintf("%d.%d.%d", s.release[0], s.release[1], s.release[2])
}

// arrival is where a converter that not every engine has arrived, read
// from modules/flowable-rest/.../RestResponseFactory.java
// (initializeVariableConverters) at the release tags and from
// FlowableVersions.CURRENT_VERSION at the commit that added it; false for
// the types every engine converts (string, integer, long, short, double,
// boolean, date) and for unknown ones.
func arrival(typ string) (since, bool) {
	switch typ {
	case JSON: // JsonObjectRestVariableConverter, d28a3b38f0
		return since{[3]int{6, 4, 0}, [4]int{6, 3, 2, 0}}, true
	case Instant: // 80a8bf8b72
		return since{[3]int{6, 5, 0}, [4]int{6, 5, 0, 5}}, true
	case LocalDate, LocalDateTime: // 1dcebe276f
		return since{[3]int{6, 5, 0}, [4]int{6, 5, 0, 6}}, true
	case UUID: // 3c0bf9c16d
		return since{[3]int{7, 1, 0}, [4]int{7, 1, 0, 1}}, true
	case BigDecimal, BigInteger: // 23e456601c
		return since{[3]int{7, 2, 0}, [4]int{7, 2, 0, 1}}, true
	}
	return since{}, false
}

// sinceLongDate is where DateRestVariableConverter began to parse with
// RequestUtil.parseLongDate instead of Jackson's ISO8601DateFormat:
// bf6366875d (schema 8.0.0.0), in 8.0.0.
func sinceLongDate() since { return since{[3]int{8, 0, 0}, [4]int{8, 0, 0, 0}} }
