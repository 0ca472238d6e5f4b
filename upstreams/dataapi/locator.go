package dataapi

import (
	"net/url"
	"strings"
)

// maxLocatorLen bounds a query locator; a locator that carries its query
// (as the sandbox's do) is at most a few kilobytes for real queries.
const maxLocatorLen = 64 << 10

// Locator extracts the query locator from a query answer's nextRecordsUrl
// ("/services/data/v35.0/query/01gD0000002HU6KIAW-2000", or the same as an
// absolute URL) so the gateway can expose it as /{version}/query/{locator}
// and hand it back to QueryMore. It reports false for anything else.
func Locator(nextRecordsURL string) (string, bool) {
	u, err := url.Parse(nextRecordsURL)
	if err != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	rest, ok := strings.CutPrefix(u.EscapedPath(), "/services/data/")
	if !ok {
		return "", false
	}
	version, locator, ok := strings.Cut(rest, "/query/")
	if !ok || !validVersion(version) || !validLocator(locator) {
		return "", false
	}
	return locator, true
}

// validVersion accepts vN.N with one to three digits before the dot and one
// or two after ("v35.0").
func validVersion(v string) bool {
	major, minor, ok := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	return ok && strings.HasPrefix(v, "v") &&
		len(major) >= 1 && len(major) <= 3 && allDigits(major) &&
		len(minor) >= 1 && len(minor) <= 2 && allDigits(minor)
}

// validName accepts a record type name: letters, digits, '_' and '-', at
// most 80 characters. It keeps path segments from carrying '/', '.', '%' or
// anything else that would change the request's meaning.
func validName(s string) bool {
	return len(s) <= 80 && safeSegment(s)
}

// validLocator accepts what validName does, up to maxLocatorLen characters.
func validLocator(s string) bool {
	return len(s) <= maxLocatorLen && safeSegment(s)
}

func safeSegment(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
