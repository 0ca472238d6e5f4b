package workflow

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// variableJSON is a RestVariable as the engine reads it from a request.
type variableJSON struct {
	Name  string          `json:"name"`
	Type  *string         `json:"type"`
	Value json.RawMessage `json:"value"`
	Scope string          `json:"scope"`
}

// stored is a variable as the engine keeps it: the type its value has in
// the engine (what RestResponseFactory.createRestVariable names it when it
// writes it back) and the JSON of the value it writes. A serializable
// variable has no JSON value: the engine writes a valueUrl instead.
type stored struct {
	typ   string // "" for a null variable
	value string // JSON; "null" for serializable and null variables
}

// serializable is the type of a value no REST converter writes: a Java
// object serialised into the engine's byte array table.
const serializable = "serializable"

// convert turns a request variable into the stored one as the engine does.
// With a type, the converter of that type reads the value
// (RestResponseFactory.getVariableValue); without one, the value is what
// Jackson made of the JSON (a String, Integer, Long, BigInteger, Double,
// Boolean, or a LinkedHashMap / ArrayList, which only the serializable type
// can store). A failed conversion is the engine's 400, or its 500 where the
// engine lets a Java exception through.
func convert(conv restvar.Converters, v variableJSON) (stored, error) {
	raw := bytes.TrimSpace(v.Value)
	if len(raw) == 0 {
		raw = []byte("null")
	}
	if v.Type == nil {
		return untyped(raw), nil
	}
	typ := *v.Type
	if !conv.Has(typ) {
		return stored{}, badRequest("Variable '%s' has unsupported type: '%s'.", v.Name, typ)
	}
	if string(raw) == "null" {
		return stored{value: "null"}, nil
	}
	num, isNum := number(raw)
	str, isStr := text(raw)
	switch typ {
	case restvar.String:
		if !isStr {
			return stored{}, badRequest("Converter can only convert strings")
		}
		return stored{restvar.String, string(raw)}, nil
	case restvar.Integer, restvar.Long, restvar.Short:
		if !isNum {
			return stored{}, badRequest("Converter can only convert %ss", typ)
		}
		return stored{typ, strconv.FormatInt(javaNarrow(num, typ), 10)}, nil
	case restvar.Double:
		if !isNum {
			return stored{}, badRequest("Converter can only convert doubles")
		}
		return stored{restvar.Double, doubleJSON(num.double)}, nil
	case restvar.BigDecimal, restvar.BigInteger:
		// new BigDecimal(value.toString()): a JSON number arrives as the
		// Double or Integer Jackson made of it.
		s := str
		if isNum {
			s = num.javaString()
		} else if !isStr {
			s = string(raw)
		}
		if typ == restvar.BigInteger {
			n, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return stored{}, internal("NumberFormatException: For input string: \"%s\"", s)
			}
			return stored{typ, quoteJSON(n.String())}, nil
		}
		plain, ok := plainDecimal(s)
		if !ok {
			return stored{}, internal("NumberFormatException: Character array is missing \"exponent\" mark 'e' or 'E'.")
		}
		return stored{typ, quoteJSON(plain)}, nil
	case restvar.Boolean:
		if string(raw) != "true" && string(raw) != "false" {
			return stored{}, badRequest("Converter can only convert booleans")
		}
		return stored{typ, string(raw)}, nil
	case restvar.Date, restvar.Instant:
		if !isStr {
			return stored{}, badRequest("Converter can only convert string to %s", typ)
		}
		parse := conv.ParseDate
		if typ == restvar.Instant {
			parse = restvar.ParseInstant
		}
		t, err := parse(str)
		if err != nil {
			return stored{}, badRequest("The given variable value is not a %s: '%s'", map[string]string{restvar.Date: "date", restvar.Instant: "instant"}[typ], str)
		}
		if typ == restvar.Date {
			t = t.Truncate(time.Millisecond) // a java.util.Date
		}
		return stored{typ, quoteJSON(restvar.FormatInstant(t))}, nil
	case restvar.LocalDate:
		t, err := time.Parse(time.DateOnly, str)
		if !isStr || err != nil {
			return stored{}, badRequest("The given variable value is not a localDate: '%s'", str)
		}
		return stored{typ, quoteJSON(t.Format(time.DateOnly))}, nil
	case restvar.LocalDateTime:
		t, err := restvar.ParseLocalDateTime(str)
		if !isStr || err != nil {
			return stored{}, badRequest("The given variable value is not a localDateTime: '%s'", str)
		}
		return stored{typ, quoteJSON(localDateTimeString(t))}, nil
	case restvar.JSON:
		if raw[0] == '{' || raw[0] == '[' {
			return stored{restvar.JSON, string(raw)}, nil
		}
		return untyped(raw), nil // the converter hands anything else on as it is
	case restvar.UUID:
		if !isStr {
			return stored{}, badRequest("Converter can only convert Strings")
		}
		if !uuidForm.MatchString(str) {
			return stored{}, internal("IllegalArgumentException: Invalid UUID string: %s", str)
		}
		return stored{typ, quoteJSON(strings.ToLower(str))}, nil
	}
	return stored{}, badRequest("Variable '%s' has unsupported type: '%s'.", v.Name, typ)
}

// untyped is what the engine stores of a JSON value Jackson read without
// a type.
func untyped(raw []byte) stored {
	switch raw[0] {
	case 'n':
		return stored{value: "null"}
	case '"':
		return stored{restvar.String, string(raw)}
	case 't', 'f':
		return stored{restvar.Boolean, string(raw)}
	case '{', '[':
		return stored{serializable, "null"}
	}
	num, _ := number(raw)
	switch {
	case num.integral && num.i.IsInt64() && num.i.Int64() == int64(int32(num.i.Int64())):
		return stored{restvar.Integer, num.i.String()}
	case num.integral && num.i.IsInt64():
		return stored{restvar.Long, num.i.String()}
	case num.integral:
		return stored{restvar.BigInteger, quoteJSON(num.i.String())}
	}
	return stored{restvar.Double, doubleJSON(num.double)}
}

// jsonNumber is a JSON number as Jackson reads it: an integer (Integer,
// Long or BigInteger) or a Double.
type jsonNumber struct {
	integral bool
	i        *big.Int
	double   float64
}

func number(raw []byte) (jsonNumber, bool) {
	s := string(raw)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) || !json.Valid(raw) {
		return jsonNumber{}, false
	}
	if !strings.ContainsAny(s, ".eE") {
		i, _ := new(big.Int).SetString(s, 10)
		f, _ := new(big.Float).SetInt(i).Float64()
		return jsonNumber{integral: true, i: i, double: f}, true
	}
	f, _ := strconv.ParseFloat(s, 64) // ±Inf beyond the range, as Jackson
	return jsonNumber{double: f}, true
}

// javaString is the number's Java toString: an Integer's digits or a
// Double's Double.toString.
func (n jsonNumber) javaString() string {
	if n.integral {
		return n.i.String()
	}
	return restvar.FormatDouble(n.double)
}

// javaNarrow is Number.intValue, longValue or shortValue: a Double
// truncated toward zero, then the low bits kept.
func javaNarrow(n jsonNumber, typ string) int64 {
	var v int64
	switch {
	case n.integral:
		v = int64(new(big.Int).And(n.i, new(big.Int).SetUint64(math.MaxUint64)).Uint64())
	case math.IsNaN(n.double):
		v = 0
	case n.double >= math.MaxInt64:
		v = math.MaxInt64
	case n.double <= math.MinInt64:
		v = math.MinInt64
	default:
		v = int64(n.double)
	}
	switch typ {
	case restvar.Integer:
		return int64(int32(v))
	case restvar.Short:
		return int64(int16(v))
	}
	return v
}

// doubleJSON writes a double as Jackson does: a number, or the quoted
// NaN / Infinity it writes for the values JSON has no number for.
func doubleJSON(f float64) string {
	s := restvar.FormatDouble(f)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return quoteJSON(s)
	}
	return s
}

var (
	decimalForm = regexp.MustCompile(`^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$`)
	uuidForm    = regexp.MustCompile(`^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$`)
)

// plainDecimal is BigDecimal(s).toPlainString(): the digits with the scale
// of the text, no exponent (1.10 stays 1.10, 1e3 is 1000).
func plainDecimal(s string) (string, bool) {
	m := decimalForm.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil || m[2]+m[3] == "" {
		return "", false
	}
	sign, digits, scale := m[1], m[2]+m[3], len(m[3])
	if m[4] != "" {
		exp, err := strconv.Atoi(m[4])
		if err != nil || exp > 1000 || exp < -1000 {
			return "", false
		}
		scale -= exp
	}
	if sign == "+" {
		sign = ""
	}
	if scale <= 0 {
		digits += strings.Repeat("0", -scale)
	} else {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" || digits[0] == '.' {
		digits = "0" + digits
	}
	return sign + digits, true
}

// localDateTimeString is LocalDateTime.toString: seconds left out when
// they and the fraction are zero, the fraction in groups of three digits.
func localDateTimeString(t time.Time) string {
	out := t.Format("2006-01-02T15:04")
	if t.Second() == 0 && t.Nanosecond() == 0 {
		return out
	}
	instant := restvar.FormatInstant(t) // ...:ss[.fff]Z
	return out + instant[len("2006-01-02T15:04"):len(instant)-1]
}

func text(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// restVariableJSON is a variable as the engine writes it in a task.
type restVariableJSON struct {
	Name     string          `json:"name"`
	Type     string          `json:"type,omitempty"`
	Value    json.RawMessage `json:"value"`
	ValueURL string          `json:"valueUrl,omitempty"`
	Scope    string          `json:"scope"`
}

// setVariables stores process variables, replacing ones of the same name,
// converted as conv does.
func setVariables(tx *sql.Tx, conv restvar.Converters, instanceID int64, vars []variableJSON) error {
	for _, v := range vars {
		if v.Name == "" {
			return badRequest("Variable name is required")
		}
		s, err := convert(conv, v)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO wf_variables (instance_id, name, type, value) VALUES (?, ?, ?, ?)
			ON CONFLICT (instance_id, name) DO UPDATE SET type = excluded.type, value = excluded.value`,
			instanceID, v.Name, s.typ, s.value); err != nil {
			return fmt.Errorf("workflow: setting variable: %w", err)
		}
	}
	return nil
}

// processVariables reads an instance's variables as a task answer carries
// them (scope global), in name order; valueBase is the task's URL, under
// which a serializable variable's data is served.
func processVariables(tx *sql.Tx, instanceID int64, valueBase string) ([]any, error) {
	rows, err := tx.Query(`SELECT name, COALESCE(type, ''), value FROM wf_variables WHERE instance_id = ? ORDER BY name`, instanceID)
	if err != nil {
		return nil, fmt.Errorf("workflow: reading variables: %w", err)
	}
	defer rows.Close()
	out := []any{}
	for rows.Next() {
		var name, typ, value string
		if err := rows.Scan(&name, &typ, &value); err != nil {
			return nil, err
		}
		if typ == "" && value != "null" { // stored before variables had types
			s := untyped([]byte(value))
			typ, value = s.typ, s.value
		}
		v := restVariableJSON{Name: name, Type: typ, Value: json.RawMessage(value), Scope: "global"}
		if typ == serializable {
			v.ValueURL = valueBase + "/variables/" + url.PathEscape(name) + "/data"
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// internal is a failure the engine does not map: its 500, whose body says
// nothing more.
func internal(format string, args ...any) error {
	return &engineError{status: http.StatusInternalServerError, exception: fmt.Sprintf(format, args...)}
}
