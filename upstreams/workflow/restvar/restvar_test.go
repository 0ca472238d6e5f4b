package restvar

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormatDouble(t *testing.T) {
	t.Parallel()
	// What Java's Double.toString prints (JDK 19 and later, shortest digits).
	tests := []struct {
		f    float64
		want string
	}{
		{1.1, "1.1"}, {2, "2.0"}, {100, "100.0"}, {12.5, "12.5"}, {0.001, "0.001"}, {0.0001, "1.0E-4"},
		{1.5e-4, "1.5E-4"}, {9999999, "9999999.0"}, {1e7, "1.0E7"}, {123456789, "1.23456789E8"},
		{1e21, "1.0E21"}, {point3(), "0.30000000000000004"}, {1e23, "1.0E23"}, {1234567.125, "1234567.125"},
		{math.MaxFloat64, "1.7976931348623157E308"}, {math.SmallestNonzeroFloat64, "4.9E-324"},
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {-25000.75, "-25000.75"}, {-1e-5, "-1.0E-5"},
		{math.Inf(1), "Infinity"}, {math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FormatDouble(tt.f), "%v", tt.f)
	}
}

// point3 is 0.1 + 0.2 computed at run time, not as an exact constant.
func point3() float64 {
	a, b := 0.1, 0.2
	return a + b
}

func TestInfer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, typ, value string
	}{
		{`"2013-04-17T10:17:43.902Z"`, String, `"2013-04-17T10:17:43.902Z"`},
		{`true`, Boolean, `true`},
		{`{"a":[1,"x"]}`, JSON, `{"a":[1,"x"]}`},
		{`[1,2]`, JSON, `[1,2]`},
		{`25000`, Integer, `25000`},
		{`-2147483648`, Integer, `-2147483648`},
		{`2147483648`, Long, `2147483648`},
		{`12345678901234567890`, BigInteger, `"12345678901234567890"`},
		{`1.5`, Double, `1.5`},
		{`2.0`, Double, `2.0`},
		{`1.10`, BigDecimal, `"1.10"`},
		{`2.00`, BigDecimal, `"2.00"`},
		{`1e3`, BigDecimal, `"1e3"`},
		{`1.0E10`, Double, `1.0E10`},
		{`0.30000000000000004`, Double, `0.30000000000000004`},
		{`0.1000000000000000000001`, BigDecimal, `"0.1000000000000000000001"`},
		{`1e400`, BigDecimal, `"1e400"`},
		{`null`, "", `null`},
	}
	for _, tt := range tests {
		typ, value := Infer(json.RawMessage(tt.raw))
		assert.Equal(t, tt.typ, typ, tt.raw)
		assert.Equal(t, tt.value, string(value), tt.raw)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ, raw string
		want     string // the value sent; "" means refused
		reason   string
	}{
		{String, `"x"`, `"x"`, ""},
		{String, `5`, "", "JSON string"},
		{Integer, `42`, `42`, ""},
		{Integer, `1.5`, "", "without fraction"},
		{Integer, `1e2`, "", "without fraction"},
		{Integer, `"42"`, "", "without fraction"},
		{Integer, `2147483648`, "", "32 bits"},
		{Short, `32767`, `32767`, ""},
		{Short, `32768`, "", "16 bits"},
		{Long, `9223372036854775807`, `9223372036854775807`, ""},
		{Long, `9223372036854775808`, "", "64 bits"},
		{Double, `1.10`, `1.10`, ""},
		{Double, `"1.1"`, "", "JSON number"},
		{Double, `1e400`, "", "range of a double"},
		{BigDecimal, `1.10`, `"1.10"`, ""},
		{BigDecimal, `"-0.50"`, `"-0.50"`, ""},
		{BigDecimal, `"1,5"`, "", "bigDecimal"},
		{BigInteger, `"123456789012345678901234"`, `"123456789012345678901234"`, ""},
		{BigInteger, `1.5`, "", "bigInteger"},
		{Boolean, `false`, `false`, ""},
		{Boolean, `"true"`, "", "true or false"},
		{JSON, `{"a":1}`, `{"a":1}`, ""},
		{JSON, `"{}"`, "", "object or array"},
		{Date, `"2013-04-17T10:17:43.902+0000"`, "", "type date"},
		{Date, `"2013-04-17T10:17:43.902Z"`, `"2013-04-17T10:17:43.902Z"`, ""},
		{Date, `"2013-04-17T10:17:43.902+02:00"`, `"2013-04-17T10:17:43.902+02:00"`, ""},
		{Date, `"2013-04-17"`, `"2013-04-17"`, ""},
		{Date, `"2013-04-17T10:17"`, `"2013-04-17T10:17"`, ""},
		{Date, `"2013-04-17T10:17:43.9Z"`, "", "type date"},
		{Date, `"2013-02-30"`, "", "type date"},
		{Date, `20130417`, "", "string"},
		{Instant, `"2013-04-17T10:17:43Z"`, `"2013-04-17T10:17:43Z"`, ""},
		{Instant, `"2013-04-17T10:17Z"`, "", "instant"},
		{LocalDate, `"2013-04-17"`, `"2013-04-17"`, ""},
		{LocalDate, `"2013-4-17"`, "", "localDate"},
		{LocalDateTime, `"2013-04-17T10:17:43.123456"`, `"2013-04-17T10:17:43.123456"`, ""},
		{LocalDateTime, `"2013-04-17T10:17:43Z"`, "", "localDateTime"},
		{UUID, `"123e4567-e89b-12d3-a456-426614174000"`, `"123e4567-e89b-12d3-a456-426614174000"`, ""},
		{UUID, `"1-1-1-1-1"`, "", "UUID"},
		{String, `null`, `null`, ""},
		{Date, `null`, `null`, ""},
		{"serializable", `"x"`, "", "the engine takes string"},
		{"Integer", `1`, "", "unknown variable type"},
	}
	for _, tt := range tests {
		got, err := Check(tt.typ, json.RawMessage(tt.raw))
		if tt.want == "" {
			require.Error(t, err, "%s %s", tt.typ, tt.raw)
			assert.Contains(t, err.Error(), tt.reason, "%s %s", tt.typ, tt.raw)
			continue
		}
		require.NoError(t, err, "%s %s", tt.typ, tt.raw)
		assert.Equal(t, tt.want, string(got), "%s %s", tt.typ, tt.raw)
	}
	_, err := Check("binary", json.RawMessage(`"x"`))
	assert.True(t, errors.Is(err, ErrUnknownType))
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	got, err := ParseDate("2013-04-17T12:17:43.902+02:00")
	require.NoError(t, err)
	assert.Equal(t, "2013-04-17T10:17:43.902Z", FormatInstant(got))
	got, err = ParseDate("2013-04-17")
	require.NoError(t, err)
	assert.Equal(t, "2013-04-17T00:00:00Z", FormatInstant(got))
	assert.Equal(t, "2013-04-17T10:17:43.000001Z", FormatInstant(time.Date(2013, 4, 17, 10, 17, 43, 1000, time.UTC)))
	assert.Equal(t, "2013-04-17T10:17:43.000000001Z", FormatInstant(time.Date(2013, 4, 17, 10, 17, 43, 1, time.UTC)))
}

// FuzzInfer: any JSON value gets a type whose check accepts the value
// inferred for it, and a double only when the engine prints it back as it
// came.
func FuzzInfer(f *testing.F) {
	for _, s := range []string{`1.10`, `2.0`, `1e3`, `-0`, `12345678901234567890`, `"x"`, `{"a":1}`, `[]`, `true`, `null`, `1E-7`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		typ, value := Infer(json.RawMessage(s))
		if typ == "" {
			return
		}
		checked, err := Check(typ, value)
		if err != nil {
			t.Fatalf("Infer(%s) = %s %s, which Check refuses: %v", s, typ, value, err)
		}
		if string(checked) != string(value) {
			t.Fatalf("Check changed the inferred value %s to %s", value, checked)
		}
		if typ == Double {
			f, _ := strconv.ParseFloat(string(value), 64)
			if FormatDouble(f) != string(value) {
				t.Fatalf("double %s prints back as %s", value, FormatDouble(f))
			}
		}
	})
}

// FuzzCheck: Check never panics, and what it accepts is valid JSON.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`"2013-04-17T10:17:43.902Z"`, `1.5`, `"1e5"`, `null`, `{}`, `"123e4567-e89b-12d3-a456-426614174000"`} {
		for _, typ := range Types() {
			f.Add(typ, s)
		}
	}
	f.Fuzz(func(t *testing.T, typ, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		out, err := Check(typ, json.RawMessage(s))
		if err == nil && !json.Valid(out) {
			t.Fatalf("Check(%s, %s) = %s, not JSON", typ, s, out)
		}
	})
}
