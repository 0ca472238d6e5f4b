package metrics

import "net/http"

// Placeholders recorded instead of a label value outside its bounded set.
const (
	// UnmatchedRoute is the route label of a request that matched no route
	// (an unknown path or version): pass "" as the route.
	UnmatchedRoute = "unmatched"
	// NonTemplateRoute replaces a route that is not a route template; seeing
	// it on a dashboard means a caller passed a raw path.
	NonTemplateRoute = "non_template"
	// NoVersion is the version label of a request without a served version:
	// pass "" as the version.
	NoVersion = "none"
	// Other replaces a method, version, response-code id, upstream name,
	// outcome or breaker state that is not of the expected form.
	Other = "other"
)

// maxRouteLen bounds a route template; a longer one is almost certainly a
// raw path with a query or a body in it.
const maxRouteLen = 128

// maxNameLen bounds ids, upstream names and outcomes.
const maxNameLen = 64

// NormalizeRoute returns route if it is a route template, UnmatchedRoute for
// "", and NonTemplateRoute otherwise. Callers may use it at configuration time
// to check that every configured template survives unchanged.
//
// A route template starts with "/", is at most 128 bytes, and every segment
// is either a placeholder ("{accountId}", or a gorilla/mux "{name:pattern}")
// or a literal of letters, digits and "-", "_", ".", "~" that does not start
// with a digit. The first segment must not be a literal version ("v1"): every
// versioned path begins with its version, so that is where a raw path is
// caught. A template containing "?", "#", "%", spaces or control characters
// is rejected.
func NormalizeRoute(route string) string {
	if route == "" {
		return UnmatchedRoute
	}
	if isRouteTemplate(route) {
		return route
	}
	return NonTemplateRoute
}

func isRouteTemplate(route string) bool {
	if len(route) > maxRouteLen || route[0] != '/' {
		return false
	}
	if route == "/" {
		return true
	}
	rest := route[1:]
	for first := true; ; first = false {
		seg, tail, more := cutSegment(rest)
		if !validSegment(seg, first) {
			return false
		}
		if !more {
			return true
		}
		rest = tail
	}
}

// cutSegment splits s at the first "/" outside braces, so a mux pattern
// like "{id:[0-9]{2}/x}" stays one segment.
func cutSegment(s string) (seg, rest string, more bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '/':
			if depth == 0 {
				return s[:i], s[i+1:], true
			}
		}
	}
	return s, "", false
}

func validSegment(seg string, first bool) bool {
	if seg == "" {
		return false
	}
	if seg[0] == '{' {
		return validPlaceholder(seg)
	}
	if seg[0] >= '0' && seg[0] <= '9' {
		return false
	}
	if first && isVersion(seg) {
		return false
	}
	for i := 0; i < len(seg); i++ {
		if !isLiteralByte(seg[i]) {
			return false
		}
	}
	return true
}

// validPlaceholder accepts "{name}" and "{name:pattern}" with balanced
// braces and printable ASCII without "?", "#", "%" or spaces.
func validPlaceholder(seg string) bool {
	if len(seg) < 3 || seg[len(seg)-1] != '}' {
		return false
	}
	body := seg[1 : len(seg)-1]
	depth := 0
	nameEnd := len(body)
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth < 0 {
				return false
			}
		case c == ':' && nameEnd == len(body):
			nameEnd = i
		case c <= ' ' || c >= 0x7f || c == '?' || c == '#' || c == '%':
			return false
		}
	}
	if depth != 0 || nameEnd == 0 {
		return false
	}
	for i := 0; i < nameEnd; i++ {
		if !isNameByte(body[i]) {
			return false
		}
	}
	return true
}

func isLiteralByte(c byte) bool {
	return isNameByte(c) || c == '-' || c == '.' || c == '~'
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// isVersion reports whether s is "v" followed by 1 to 4 digits.
func isVersion(s string) bool {
	if len(s) < 2 || len(s) > 5 || s[0] != 'v' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// normalizeVersion keeps "v" plus digits, maps "" to NoVersion and anything
// else to Other.
func normalizeVersion(v string) string {
	switch {
	case v == "":
		return NoVersion
	case isVersion(v):
		return v
	}
	return Other
}

// normalizeMethod keeps the methods net/http names; a client can send any
// token as a method, so the rest would be unbounded.
func normalizeMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete, http.MethodConnect,
		http.MethodOptions, http.MethodTrace:
		return m
	}
	return Other
}

// normalizeName keeps identifiers such as response-code ids ("URL_INVALID"),
// upstream names ("accounts") and outcomes ("bulkhead_full"): a letter, then
// up to 63 letters, digits, "_", "-" or ".".
func normalizeName(s string) string {
	if s == "" || len(s) > maxNameLen {
		return Other
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return Other
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isNameByte(c) && c != '-' && c != '.' {
			return Other
		}
	}
	return s
}

// Breaker states as the upstream client reports them.
const (
	breakerClosed   = "closed"
	breakerHalfOpen = "half-open"
	breakerOpen     = "open"
)

// breakerValue is the gauge value of a breaker state; ok is false for an
// unknown state.
func breakerValue(state string) (v float64, ok bool) {
	switch state {
	case breakerClosed:
		return 0, true
	case breakerHalfOpen:
		return 1, true
	case breakerOpen:
		return 2, true
	}
	return 0, false
}

// normalizeState keeps the three breaker states and maps anything else to
// Other.
func normalizeState(state string) string {
	if _, ok := breakerValue(state); ok {
		return state
	}
	return Other
}
