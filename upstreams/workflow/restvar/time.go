package restvar

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The engine's date syntaxes, as its parsers read them.
var (
	// date: RequestUtil.parseLongDate, yyyy-MM-dd['T'HH:mm[:ss[.SSS]][offset]],
	// the offset Z or +HH:mm, none meaning UTC.
	longDate = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(?::(\d{2})(?:\.(\d{3}))?)?(Z|[+-]\d{2}:\d{2})?)?$`)
	// instant: Instant.parse, ISO_INSTANT: seconds required, 0 to 9
	// fraction digits, Z or an offset.
	instant = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$`)
	// date before 8.0.0: Jackson's ISO8601Utils.parse (ISO8601DateFormat),
	// in its extended form: yyyy-MM-dd['T'HH:mm[:ss[.f...]]offset], the
	// offset Z, +HH:mm or +HHmm, required with a time.
	isoDate = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2}))?$`)
	// localDate: LocalDate.parse, ISO_LOCAL_DATE.
	localDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	// localDateTime: LocalDateTime.parse, ISO_LOCAL_DATE_TIME: seconds and
	// fraction optional, no offset.
	localDateTime = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$`)
)

// ParseDate reads a value of type date as the engine does
// (2013-04-17, 2013-04-17T10:17, 2013-04-17T10:17:43.902+02:00, ... with
// exactly three fraction digits when there are any); without an offset the
// time is UTC.
func ParseDate(s string) (time.Time, error) {
	m := longDate.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, errDate
	}
	sec, frac, zone := or(m[3], "00"), or(m[4], "000"), or(m[5], "Z")
	t, err := time.Parse("2006-01-02T15:04:05.000Z07:00", m[1]+"T"+or(m[2], "00:00")+":"+sec+"."+frac+zone)
	if err != nil {
		return time.Time{}, errDate
	}
	return t, nil
}

var errDate = errors.New("must be a date like 2013-04-17T10:17:43.902Z (yyyy-MM-dd, optionally 'T'HH:mm[:ss[.SSS]] and an offset Z or +HH:mm) for type date")

// ParseISODate reads a value of type date as engines before 8.0.0 do
// (Jackson's ISO8601DateFormat): 2013-04-17, or a time with an offset,
// 2013-04-17T10:17Z, 2013-04-17T10:17:43.9+0200, ... (any number of
// fraction digits, the first three read). A date alone is midnight in the
// engine JVM's time zone, which the gateway cannot know; it is returned
// as midnight UTC.
func ParseISODate(s string) (time.Time, error) {
	m := isoDate.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, errISODate
	}
	frac := (m[4] + "000")[:3]
	zone := m[5]
	if len(zone) == 5 { // +HHmm
		zone = zone[:3] + ":" + zone[3:]
	}
	t, err := time.Parse("2006-01-02T15:04:05.000Z07:00", m[1]+"T"+or(m[2], "00:00")+":"+or(m[3], "00")+"."+frac+or(zone, "Z"))
	if err != nil {
		return time.Time{}, errISODate
	}
	return t, nil
}

var errISODate = errors.New("must be a date like 2013-04-17 or 2013-04-17T10:17:43.902Z (yyyy-MM-dd, or with 'T'HH:mm[:ss[.SSS]] and an offset Z, +HH:mm or +HHmm) for type date")

// ParseInstant reads a value of type instant (2013-04-17T10:17:43.902Z).
func ParseInstant(s string) (time.Time, error) {
	if instant.MatchString(s) {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("must be an instant like 2013-04-17T10:17:43.902Z for type instant")
}

// ParseLocalDateTime reads a value of type localDateTime
// (2013-04-17T10:17 or 2013-04-17T10:17:43.902), a time without zone; the
// result is in UTC only to carry it.
func ParseLocalDateTime(s string) (time.Time, error) {
	m := localDateTime.FindStringSubmatch(s)
	if m != nil {
		frac := m[4]
		layout := "2006-01-02T15:04:05"
		value := m[1] + "T" + m[2] + ":" + or(m[3], "00")
		if frac != "" {
			layout += "." + strings.Repeat("0", len(frac))
			value += "." + frac
		}
		if t, err := time.Parse(layout, value); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("must be a date and time like 2013-04-17T10:17:43 (no offset) for type localDateTime")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// FormatInstant prints t as Java's Instant.toString does, which is how the
// engine writes a date or instant variable: UTC, Z, and the fraction of
// the second in groups of three digits, left out when zero
// (2013-04-17T10:17:43.902Z, 2013-04-17T10:17:43Z).
func FormatInstant(t time.Time) string {
	t = t.UTC()
	out := t.Format("2006-01-02T15:04:05")
	if ns := t.Nanosecond(); ns != 0 {
		frac := strconv.Itoa(1e9 + ns)[1:]
		switch {
		case ns%1e6 == 0:
			frac = frac[:3]
		case ns%1e3 == 0:
			frac = frac[:6]
		}
		out += "." + frac
	}
	return out + "Z"
}
