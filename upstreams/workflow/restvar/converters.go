package restvar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrNotConverted is in the chain of Converters.Check's error for a type
// the gateway knows but the engine's version has no converter for.
var ErrNotConverted = errors.New("type not converted")

// Converters are the variable types of one engine version, and how that
// version reads them: what the gateway may send it. The zero value is an
// engine of unknown version, given only what every engine converts (as
// Oldest).
type Converters struct {
	version Version
}

// For returns the converters of an engine of version v.
func For(v Version) Converters { return Converters{version: v} }

// Oldest returns the converters every engine has (Flowable 6.0 to 6.3, and
// Activiti 5): string, integer, long, short, double, boolean and date, the
// date read by Jackson's ISO8601DateFormat. It is what an engine whose
// version is unknown is sent.
func Oldest() Converters { return Converters{} }

// Current returns the converters of CurrentRelease: every type of Types.
func Current() Converters {
	v, _ := ParseVersion(CurrentRelease)
	return For(v)
}

// Version is the engine version c is for; zero for Oldest.
func (c Converters) Version() Version { return c.version }

// String is the engine's version as it was given ("6.5.0.1"), or
// "unknown".
func (c Converters) String() string {
	if c.version.IsZero() {
		return "unknown"
	}
	return c.version.String()
}

// Has reports whether the engine converts typ.
func (c Converters) Has(typ string) bool {
	if !known(typ) {
		return false
	}
	s, ok := arrival(typ)
	return !ok || !c.version.IsZero() && c.version.reaches(s)
}

// Types lists the types the engine converts, in its converter order.
func (c Converters) Types() []string {
	var out []string
	for _, t := range Types() {
		if c.Has(t) {
			out = append(out, t)
		}
	}
	return out
}

// longDate reports whether the engine reads a date as the current one
// does (RequestUtil.parseLongDate) rather than with Jackson's
// ISO8601DateFormat (ParseISODate).
func (c Converters) longDate() bool {
	return !c.version.IsZero() && c.version.reaches(sinceLongDate())
}

// ParseDate reads a value of type date as the engine does: with
// RequestUtil.parseLongDate from 8.0.0 (the package's ParseDate), with
// Jackson's ISO8601DateFormat before (ParseISODate).
func (c Converters) ParseDate(s string) (time.Time, error) {
	if c.longDate() {
		return ParseDate(s)
	}
	t, err := ParseISODate(s)
	if err != nil {
		return t, fmt.Errorf("%w (the workflow engine, version %s, reads dates as Flowable did before %s)", err, c, sinceLongDate())
	}
	return t, nil
}

// Check is the package's Check for this engine: a type the engine has no
// converter for is refused (ErrNotConverted, naming the version and the
// release that added it), and before 8.0.0 a date is checked as Jackson's
// ISO8601DateFormat reads it (an offset is required with a time).
func (c Converters) Check(typ string, raw json.RawMessage) (json.RawMessage, error) {
	if known(typ) && !c.Has(typ) {
		s, _ := arrival(typ)
		return nil, fmt.Errorf("%w: the workflow engine (version %s) has no type %s, which Flowable added in %s; it takes %s",
			ErrNotConverted, c, typ, s, strings.Join(c.Types(), ", "))
	}
	raw = bytes.TrimSpace(raw)
	if typ != Date || c.longDate() || len(raw) == 0 || string(raw) == "null" {
		return check(typ, raw)
	}
	s, ok := jsonString(raw)
	if !ok {
		return nil, errors.New("must be a string for type date")
	}
	if _, err := c.ParseDate(s); err != nil {
		return nil, err
	}
	return raw, nil
}

// Infer is the package's Infer for this engine, which may lack the types
// Infer gives:
//
//	an integer beyond 64 bits, without bigInteger       double (the digits past a double's 15 to 17 are lost)
//	a decimal, without bigDecimal                       double, as the engine reads it (1.10 is 1.1, and
//	                                                    0.1000000000000000000001 is 0.1)
//	an object or an array, without json                 string, its compact JSON text
//
// A number a double cannot hold (beyond ±1.8E308, or so small that it would
// be 0) is refused when the engine has no bigDecimal: the error says to send
// it as a string.
func (c Converters) Infer(raw json.RawMessage) (typ string, value json.RawMessage, err error) {
	typ, value = infer(raw)
	if typ == "" || c.Has(typ) {
		return typ, value, nil
	}
	text := bytes.TrimSpace(raw)
	switch typ {
	case BigDecimal, BigInteger:
		f, err := strconv.ParseFloat(string(text), 64)
		mantissa, _, _ := strings.Cut(strings.ToLower(string(text)), "e")
		if err != nil || f == 0 && strings.ContainsAny(mantissa, "123456789") {
			big, _ := arrival(BigDecimal)
			return "", nil, fmt.Errorf("is beyond what a double holds, and the workflow engine (version %s) has no bigDecimal "+
				"(Flowable added it in %s): send it as a string", c, big)
		}
		return Double, json.RawMessage(text), nil
	case JSON:
		var b bytes.Buffer
		if err := json.Compact(&b, text); err != nil {
			return "", nil, fmt.Errorf("is not valid JSON: %w", err)
		}
		return String, quote(b.String()), nil
	}
	return "", nil, fmt.Errorf("%w: the workflow engine (version %s) has no type %s", ErrNotConverted, c, typ)
}

// Portable reports whether a variable of type typ ("" for none) and value
// raw is typed, checked and sent alike whatever the engine's version, so
// that sending it needs no version: an untyped string, boolean, null or
// 64-bit integer, or a type every engine converts alike (not date, whose
// parser changed in 8.0.0). A type no engine has is portable too: it is
// refused alike.
func Portable(typ string, raw json.RawMessage) bool {
	if typ == "" {
		typ, _ = infer(raw)
		if typ == "" {
			return true
		}
	}
	_, arrived := arrival(typ)
	return !arrived && typ != Date
}
