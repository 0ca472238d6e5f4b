package envelope

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxReasonBytes bounds a backend's reason in a client message.
const MaxReasonBytes = 200

// removed stands where the reason named something a client must not see.
const removed = "[removed]"

// reasonRule is a pattern ClientReason replaces and what replaces it.
type reasonRule struct {
	re   *regexp.Regexp
	with string
}

// hostSuffixes are the last labels of names ClientReason takes for host
// names (a bare Account.Name of a query is none).
const hostSuffixes = `com|net|org|io|dev|app|cloud|local|localhost|internal|lan|corp|intranet|svc|cluster|edu|gov|mil|` +
	`co|uk|de|fr|nl|eu|us|ca|au|jp|in|info|biz|me|tech|site|online|xyz|amazonaws|azure|gcp`

// reasonPatterns are ClientReason's compiled patterns; compiled once,
// never changed (a *regexp.Regexp is safe for concurrent use).
var reasonPatterns = reasonSet{
	// A line that is a frame of a stack trace (Java, Go, Python, .NET,
	// JavaScript) or starts one; the reason ends before it.
	stack: regexp.MustCompile(`(?m)(^\s+at\s+\S+|^at\s+[\w$.<>]+\(|^\s*(File "[^"]*", line \d+|goroutine \d+|Traceback \(most recent call last\)|` +
		`Caused by:|Exception in thread|\.\.\. \d+ more|\S+\.(go|java|py|js|ts|cs|rb):\d+))`),
	rules: []reasonRule{
		// credentials first, before their surroundings are cut up
		{regexp.MustCompile(`(?i)\b(bearer|basic|apikey|token|negotiate)\s+[A-Za-z0-9._~+/=!-]{8,}`), "$1 " + removed},
		// a secret's value after its name; a token's only after = or as
		// a JSON member ("unexpected token: FORM" is a parser's reason),
		// a long one is an opaque token below
		{regexp.MustCompile(`(?i)\b(password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|private[_-]?key|` +
			`credentials?|authorization)(["']?\s*[=:]\s*)(\[removed\]|"[^"]*"|'[^']*'|[^\s,;}\]]+)`), "$1$2" + removed},
		{regexp.MustCompile(`(?i)\b(token|access[_-]?token|refresh[_-]?token|session[_-]?id|sid)(\s*=\s*|["']\s*:\s*)` +
			`(\[removed\]|"[^"]*"|'[^']*'|[^\s,;}\]]+)`), "$1$2" + removed},
		// addresses: URLs of any scheme, mail addresses, IP addresses,
		// host:port, and names under a known suffix
		{regexp.MustCompile(`\S*://\S*`), removed},
		{regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+\b`), removed},
		{regexp.MustCompile(`\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\](:\d+)?`), removed},
		{regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b`), removed},
		{regexp.MustCompile(`(?i)\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(` + hostSuffixes + `)\b(:\d+)?`), removed},
		{regexp.MustCompile(`(?i)\blocalhost\b(:\d+)?`), removed},
		{regexp.MustCompile(`(?i)\b[a-z0-9-]+(\.[a-z0-9-]+)*:\d{2,5}\b`), removed},
		// file paths
		{regexp.MustCompile(`(^|[\s(=])(/[A-Za-z0-9._-]+){2,}/?`), "$1" + removed},
		{regexp.MustCompile(`(?i)\b[a-z]:\\[^\s]*`), removed},
		// opaque tokens: long runs of token characters with a digit and
		// a letter (session ids, JWTs, keys); record ids are shorter
		{regexp.MustCompile(`[A-Za-z0-9+/=_!.-]{32,}`), "\x00"},
	},
}

// ClientReason returns the message a backend gave for rejecting a request
// (a 4xx), made safe to show the client: markup stripped; everything from
// the first line of a stack trace on dropped; URLs, mail and IP addresses,
// host names and host:port, file paths, credentials (a bearer or basic
// value, password=..., token: ...) and long opaque tokens replaced by
// "[removed]"; whitespace collapsed, control characters dropped; at most
// MaxReasonBytes, cut at a character with "...". code, the backend's error
// code, leads it when the message does not already name it. "" when
// nothing is left.
func ClientReason(code, message string) string {
	r := &reasonPatterns
	message = strings.ToValidUTF8(message, "")
	message = r.cutStack(message)
	code = strings.Map(func(c rune) rune {
		if c == '_' || c == '-' || c == '.' || unicode.IsLetter(c) || unicode.IsDigit(c) {
			return c
		}
		return -1
	}, strings.ToValidUTF8(code, ""))
	if len(code) <= 64 && code != "" && !strings.Contains(message, code) {
		message = code + ": " + message
	}
	message = StripMarkup(message)
	// A replacement can join pieces into something a rule takes (markup
	// around a secret's value): the rules run until nothing changes.
	for range 4 {
		// Cut again once tidied: a control character dropped can make a
		// stack frame's line of what followed it.
		next := strings.TrimRight(r.cutStack(tidy(r.apply(message))), ": ")
		if next == message {
			break
		}
		message = next
	}
	return clipReason(message)
}

// reasonSet is the sanitiser's patterns: where a stack trace starts, and
// the rules.
type reasonSet struct {
	stack *regexp.Regexp
	rules []reasonRule
}

// cutStack drops message from the first line of a stack trace on.
func (r *reasonSet) cutStack(message string) string {
	if loc := r.stack.FindStringIndex(message); loc != nil {
		return message[:loc[0]]
	}
	return message
}

func (r *reasonSet) apply(message string) string {
	for _, rule := range r.rules {
		if rule.with == "\x00" {
			message = rule.re.ReplaceAllStringFunc(message, opaque)
			continue
		}
		message = rule.re.ReplaceAllString(message, rule.with)
	}
	return message
}

// tidy drops control characters and the '<' and '>' StripMarkup could not
// pair (neither is needed in a reason, and both confuse a client that
// renders it as HTML), and collapses whitespace.
func tidy(message string) string {
	message = strings.Map(func(c rune) rune {
		if c == '<' || c == '>' || unicode.IsControl(c) || c == utf8.RuneError {
			return ' '
		}
		return c
	}, message)
	return strings.Join(strings.Fields(message), " ")
}

// opaque replaces a token-like run that has both a digit and a letter.
func opaque(s string) string {
	if strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, unicode.IsLetter) >= 0 {
		return removed
	}
	return s
}

func clipReason(s string) string {
	if len(s) <= MaxReasonBytes {
		return s
	}
	cut := MaxReasonBytes - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + "..."
}
