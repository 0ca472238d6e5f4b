// Package restvar is the workflow engine's REST variable vocabulary, as
// Flowable's RestResponseFactory and its RestVariableConverters define it:
// the type names a variable may carry, the value each type accepts, the
// type the gateway gives a value sent without one, and how the engine
// prints a double.
//
// The engine itself guesses a type from the JSON value when none is sent
// (Jackson's reading of it: a decimal becomes a double, an object a
// serialised Java map), which loses what the caller meant; the gateway
// therefore always sends a type (Infer) and checks a given one before the
// engine sees it (Check).
//
// Which types an engine converts depends on its version (Version): 6.0 to
// 6.3 convert only string, integer, long, short, double, boolean and date,
// and an engine answers any other type 400 "Variable 'x' has unsupported
// type: 'y'.". Converters are one version's types, and type and check a
// variable for it.
package restvar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The types of the engine's converters (RestVariable.type); names are
// case-sensitive, as the engine compares them.
const (
	String        = "string"
	Integer       = "integer"
	Long          = "long"
	Short         = "short"
	Double        = "double"
	BigDecimal    = "bigDecimal"
	BigInteger    = "bigInteger"
	Boolean       = "boolean"
	Date          = "date"
	Instant       = "instant"
	LocalDate     = "localDate"
	LocalDateTime = "localDateTime"
	JSON          = "json"
	UUID          = "uuid"
)

// Types lists the types Check accepts, those of the current engine, in the
// engine's converter order.
func Types() []string {
	return []string{String, Integer, Long, Short, Double, BigDecimal, BigInteger, Boolean,
		Date, Instant, LocalDate, LocalDateTime, JSON, UUID}
}

// ErrUnknownType is in the chain of Check's error for a type the engine has
// no converter for (the engine answers it 400 "unsupported type").
var ErrUnknownType = errors.New("unknown variable type")

// Check validates raw, one JSON value, as a value of typ and returns the
// value to send to the current engine (CurrentRelease; Converters.Check
// for another). A null is valid for every type (the engine stores a null
// variable). Numbers keep their text; a bigDecimal or bigInteger is sent as
// a JSON string of its digits, because the engine's converter reads the
// value's text and a JSON number would reach it through a double. The error
// says what a value of typ looks like.
func Check(typ string, raw json.RawMessage) (json.RawMessage, error) {
	return check(typ, raw)
}

func check(typ string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		if !known(typ) {
			return nil, unknownType(typ)
		}
		return json.RawMessage("null"), nil
	}
	switch typ {
	case String:
		if _, ok := jsonString(raw); !ok {
			return nil, errors.New("must be a JSON string for type string")
		}
		return raw, nil
	case Integer, Long, Short:
		if _, err := integer(string(raw), typ); err != nil {
			return nil, err
		}
		return raw, nil
	case Double:
		if !isNumber(raw) {
			return nil, errors.New("must be a JSON number for type double")
		}
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return nil, errors.New("is beyond the range of a double")
		}
		return raw, nil
	case BigDecimal:
		text, ok := numberText(raw)
		if !ok || !decimalSyntax.MatchString(text) {
			return nil, errors.New("must be a number, or a string holding one, for type bigDecimal")
		}
		return quote(text), nil
	case BigInteger:
		text, ok := numberText(raw)
		if !ok || !integerSyntax.MatchString(text) {
			return nil, errors.New("must be an integer, or a string holding one, for type bigInteger")
		}
		return quote(text), nil
	case Boolean:
		if string(raw) != "true" && string(raw) != "false" {
			return nil, errors.New("must be true or false for type boolean")
		}
		return raw, nil
	case JSON:
		if raw[0] != '{' && raw[0] != '[' {
			return nil, errors.New("must be a JSON object or array for type json")
		}
		return raw, nil
	case Date, Instant, LocalDate, LocalDateTime, UUID:
		s, ok := jsonString(raw)
		if !ok {
			return nil, fmt.Errorf("must be a string for type %s", typ)
		}
		if err := checkText(typ, s); err != nil {
			return nil, err
		}
		return raw, nil
	}
	return nil, unknownType(typ)
}

// Infer returns the type the gateway gives a value sent without one when
// the engine is the current one (CurrentRelease; Converters.Infer for
// another), and the value to send (as Check would return it):
//
//	a string                                       string (never date: a date is asked for by type)
//	true, false                                    boolean
//	an object or an array                          json
//	an integer within 32 bits, 64 bits, beyond     integer, long, bigInteger
//	a number with a fraction or an exponent        double when the engine prints the same text back
//	                                               (1.5, 2.0), else bigDecimal (1.10, 1e3, 0.1000)
//	null                                           "" (no type: the engine stores a null variable)
//
// raw must be one valid JSON value.
func Infer(raw json.RawMessage) (typ string, value json.RawMessage) {
	return infer(raw)
}

func infer(raw json.RawMessage) (typ string, value json.RawMessage) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", json.RawMessage("null")
	}
	switch raw[0] {
	case '"':
		return String, raw
	case 't', 'f':
		return Boolean, raw
	case '{', '[':
		return JSON, raw
	}
	text := string(raw)
	if !strings.ContainsAny(text, ".eE") {
		for _, t := range []string{Integer, Long} {
			if _, err := integer(text, t); err == nil {
				return t, raw
			}
		}
		return BigInteger, quote(text)
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && FormatDouble(f) == text {
		return Double, raw
	}
	return BigDecimal, quote(text)
}

// FormatDouble prints f as the engine's JSON writer prints a double
// (Java's Double.toString, shortest digits): plain with at least one
// fraction digit from 10^-3 up to 10^7 (1.1, 2.0, 0.001), otherwise
// d.dddE±n (1.0E7, 1.5E-4). Older JVMs (before JDK 19) print a few values
// with more digits than needed; the engine's JVM decides.
func FormatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	sign := ""
	if math.Signbit(f) {
		sign, f = "-", -f
	}
	if f == 0 {
		return sign + "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx
	if !strings.Contains(e, ".") {
		// One shortest digit: Java picks the two-digit decimal nearest to
		// f instead (4.9E-324, not 5.0E-324).
		e = strconv.FormatFloat(f, 'e', 1, 64)
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	if f >= 1e-3 && f < 1e7 {
		if exp < 0 {
			return sign + "0." + strings.Repeat("0", -exp-1) + digits
		}
		if len(digits) <= exp+1 {
			return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		}
		return sign + digits[:exp+1] + "." + digits[exp+1:]
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

func known(typ string) bool {
	for _, t := range Types() {
		if t == typ {
			return true
		}
	}
	return false
}

func unknownType(typ string) error {
	return fmt.Errorf("%w %q: the engine takes %s", ErrUnknownType, typ, strings.Join(Types(), ", "))
}

// IntegerPattern and DecimalPattern are the texts of a bigInteger and of a
// bigDecimal (Java's BigInteger and BigDecimal read them; BigDecimal's
// toString writes an exponent: 1E+3).
const (
	IntegerPattern = `^[+-]?[0-9]+$`
	DecimalPattern = `^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`
)

var (
	integerSyntax = regexp.MustCompile(IntegerPattern)
	decimalSyntax = regexp.MustCompile(DecimalPattern)
)

// integer reads text as an integer of the engine's type typ: integer (32
// bits), long (64) or short (16). The engine's converters would truncate a
// fraction and wrap a value out of range, so both are refused.
func integer(text, typ string) (int64, error) {
	bits := map[string]int{Integer: 32, Long: 64, Short: 16}[typ]
	if !isNumberText(text) || strings.ContainsAny(text, ".eE") {
		return 0, fmt.Errorf("must be an integer without fraction or exponent for type %s", typ)
	}
	n, err := strconv.ParseInt(text, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("is beyond the range of type %s (%d bits)", typ, bits)
	}
	return n, nil
}

func isNumber(raw []byte) bool { return isNumberText(string(raw)) }

func isNumberText(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}

// numberText is the text of a JSON number, or of a JSON string holding
// something to check as one.
func numberText(raw []byte) (string, bool) {
	if s, ok := jsonString(raw); ok {
		return strings.TrimSpace(s), true
	}
	return string(raw), isNumber(raw)
}

func jsonString(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// checkText validates the string value of a date-like or uuid type.
func checkText(typ, s string) error {
	var err error
	switch typ {
	case Date:
		_, err = ParseDate(s)
	case Instant:
		_, err = ParseInstant(s)
	case LocalDate:
		_, err = time.Parse(time.DateOnly, s)
		if err == nil && !localDate.MatchString(s) {
			err = errors.New("not yyyy-MM-dd")
		}
		if err != nil {
			err = errors.New("must be a date like 2013-04-17 for type localDate")
		}
	case LocalDateTime:
		_, err = ParseLocalDateTime(s)
	case UUID:
		if !uuidSyntax.MatchString(s) {
			err = errors.New("must be a UUID like 123e4567-e89b-12d3-a456-426614174000 for type uuid")
		}
	}
	return err
}

var uuidSyntax = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
