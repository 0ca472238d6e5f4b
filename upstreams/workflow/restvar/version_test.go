package restvar

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The converter lists of RestResponseFactory.initializeVariableConverters,
// as read at each tag of flowable-engine, written out here rather than
// derived from the package's table so that the table is checked against
// them.
var (
	types60 = []string{String, Integer, Long, Short, Double, Boolean, Date}          // 6.0.0 - 6.3.1
	types64 = append(append([]string{}, types60...), JSON)                           // 6.4.0 - 6.4.2
	types65 = []string{String, Integer, Long, Short, Double, Boolean, Date, Instant, // 6.5.0 - 7.0.1
		LocalDate, LocalDateTime, JSON}
	types71 = append(append([]string{}, types65...), UUID)                                    // 7.1.0
	types72 = []string{String, Integer, Long, Short, Double, BigDecimal, BigInteger, Boolean, // 7.2.0, 8.0.0
		Date, Instant, LocalDate, LocalDateTime, JSON, UUID}
)

func TestTypesByVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version string
		want    []string
	}{
		// What GET /management/engine answers: the schema version before
		// 6.6.0 (FlowableVersions.CURRENT_VERSION at the tag), the release
		// after.
		{"5.22.0.0", types60},
		{"6.0.0.5", types60},
		{"6.1.2.0", types60},
		{"6.2.1.0", types60},
		{"6.3.0.1", types60},
		{"6.3.1.0", types60},
		{"6.4.0.0", types64},
		{"6.4.1.3", types64},
		{"6.5.0.1", types64}, // 6.4.2
		{"6.5.0.5", types64[: len(types64)-1 : len(types64)-1]},
		{"6.5.0.6", types65}, // 6.5.0
		{"6.6.0", types65},
		{"6.8.1", types65},
		{"7.0.0.M1", types65},
		{"7.0.1", types65},
		{"7.1.0", types71},
		{"7.2.0-SNAPSHOT", types71},
		{"7.2.0", types72},
		{"8.0.0", types72},
		{"9.1.0", types72},
		// What an operator pins: releases.
		{"6.3", types60},
		{"6.4.2", types64},
		{"6.5.0", types65},
		{"7.1.0.1", types71},
	}
	for _, tt := range tests {
		v, err := ParseVersion(tt.version)
		require.NoError(t, err, tt.version)
		if tt.version == "6.5.0.5" {
			// the snapshot between Instant's arrival and LocalDate's
			assert.Equal(t, []string{String, Integer, Long, Short, Double, Boolean, Date, Instant, JSON}, For(v).Types(), tt.version)
			continue
		}
		assert.Equal(t, tt.want, For(v).Types(), tt.version)
	}
	assert.Equal(t, types60, Oldest().Types())
	assert.Equal(t, types72, Current().Types())
	assert.Equal(t, Types(), Current().Types(), "the current engine converts every type the gateway knows")
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"6.5", "6.5.0", "6.5.0.6", " 8.0.0 ", "7.0.0.M1", "7.2.0-SNAPSHOT", "6.5.0.6.1", "10.0.0.rc_2"} {
		v, err := ParseVersion(ok)
		require.NoError(t, err, ok)
		assert.Equal(t, strings.TrimSpace(ok), v.String())
		assert.False(t, v.IsZero())
	}
	for _, bad := range []string{"", " ", "6", "6.", "6.5.", "v6.5.0", "6.x", "12345.0.0", "6.5.0 beta", "6..5",
		"6.5.0-", "6.5.0+build", "10.0.0_rc.2", strings.Repeat("6.", 40) + "0", "null"} {
		_, err := ParseVersion(bad)
		assert.ErrorIs(t, err, ErrVersion, "%q", bad)
	}
	assert.True(t, Version{}.IsZero())
}

func TestConvertersCheck(t *testing.T) {
	t.Parallel()
	v642, _ := ParseVersion("6.5.0.1")
	v72, _ := ParseVersion("7.2.0")
	old, newer := For(v642), For(v72)
	tests := []struct {
		c        Converters
		typ, raw string
		want     string // "" means refused
		reason   string
	}{
		{old, BigDecimal, `"1.10"`, "", "type not converted: the workflow engine (version 6.5.0.1) has no type bigDecimal, which Flowable added in 7.2.0; it takes string, integer, long, short, double, boolean, date, json"},
		{old, Instant, `"2013-04-17T10:17:43Z"`, "", "added in 6.5.0"},
		{old, UUID, `null`, "", "added in 7.1.0"},
		{old, JSON, `{"a":1}`, `{"a":1}`, ""},
		{old, "serializable", `"x"`, "", "unknown variable type"},
		{Oldest(), JSON, `{}`, "", "(version unknown) has no type json"},
		// Dates before 8.0.0: Jackson's ISO8601DateFormat.
		{old, Date, `"2013-04-17"`, `"2013-04-17"`, ""},
		{old, Date, `"2013-04-17T10:17Z"`, `"2013-04-17T10:17Z"`, ""},
		{old, Date, `"2013-04-17T10:17:43.9+0200"`, `"2013-04-17T10:17:43.9+0200"`, ""},
		{old, Date, `"2013-04-17T10:17:43.902123-05:30"`, `"2013-04-17T10:17:43.902123-05:30"`, ""},
		{old, Date, `"2013-04-17T10:17"`, "", "reads dates as Flowable did before 8.0.0"},
		{old, Date, `"2013-04-17T10:17:43.902"`, "", "an offset"},
		{old, Date, `"2013-02-30"`, "", "type date"},
		{old, Date, `17`, "", "string"},
		{old, Date, `null`, `null`, ""},
		// ... and from 8.0.0 RequestUtil.parseLongDate: no offset is UTC.
		{Current(), Date, `"2013-04-17T10:17"`, `"2013-04-17T10:17"`, ""},
		{Current(), Date, `"2013-04-17T10:17:43.9+0200"`, "", "type date"},
		{newer, Date, `"2013-04-17T10:17:43.9+0200"`, `"2013-04-17T10:17:43.9+0200"`, ""},
		{newer, BigDecimal, `1.10`, `"1.10"`, ""},
		{newer, Integer, `1.5`, "", "without fraction"},
	}
	for _, tt := range tests {
		got, err := tt.c.Check(tt.typ, json.RawMessage(tt.raw))
		if tt.want == "" {
			require.Error(t, err, "%s %s %s", tt.c, tt.typ, tt.raw)
			assert.Contains(t, err.Error(), tt.reason, "%s %s %s", tt.c, tt.typ, tt.raw)
			continue
		}
		require.NoError(t, err, "%s %s %s", tt.c, tt.typ, tt.raw)
		assert.Equal(t, tt.want, string(got), "%s %s %s", tt.c, tt.typ, tt.raw)
	}
	_, err := old.Check(BigInteger, json.RawMessage(`1`))
	assert.ErrorIs(t, err, ErrNotConverted)
	_, err = old.Check("Integer", json.RawMessage(`1`))
	assert.ErrorIs(t, err, ErrUnknownType)
	assert.False(t, errors.Is(err, ErrNotConverted))
}

func TestConvertersInfer(t *testing.T) {
	t.Parallel()
	v63, _ := ParseVersion("6.3.0.1")
	v71, _ := ParseVersion("7.1.0")
	old, uuid := For(v63), For(v71)
	tests := []struct {
		c                    Converters
		raw, typ, value, err string
	}{
		{old, `1.10`, Double, `1.10`, ""},
		{old, `0.1000000000000000000001`, Double, `0.1000000000000000000001`, ""},
		{old, `1e3`, Double, `1e3`, ""},
		{old, `1.5`, Double, `1.5`, ""},
		{old, `12345678901234567890`, Double, `12345678901234567890`, ""},
		{old, `25000`, Integer, `25000`, ""},
		{old, `2147483648`, Long, `2147483648`, ""},
		{old, `{"a": [1, "x"]}`, String, `"{\"a\":[1,\"x\"]}"`, ""},
		{old, `[]`, String, `"[]"`, ""},
		{old, `"2013-04-17"`, String, `"2013-04-17"`, ""},
		{old, `"123e4567-e89b-12d3-a456-426614174000"`, String, `"123e4567-e89b-12d3-a456-426614174000"`, ""},
		{old, `true`, Boolean, `true`, ""},
		{old, `null`, "", `null`, ""},
		{old, `1e400`, "", "", "beyond what a double holds, and the workflow engine (version 6.3.0.1) has no bigDecimal (Flowable added it in 7.2.0): send it as a string"},
		{old, `-1E400`, "", "", "send it as a string"},
		{old, `1e-400`, "", "", "send it as a string"},
		{old, `0.0e-400`, Double, `0.0e-400`, ""},
		{uuid, `1.10`, Double, `1.10`, ""},
		{uuid, `{"a":1}`, JSON, `{"a":1}`, ""},
		{Current(), `1.10`, BigDecimal, `"1.10"`, ""},
		{Current(), `12345678901234567890`, BigInteger, `"12345678901234567890"`, ""},
		{Current(), `1e400`, BigDecimal, `"1e400"`, ""},
	}
	for _, tt := range tests {
		typ, value, err := tt.c.Infer(json.RawMessage(tt.raw))
		if tt.err != "" {
			require.Error(t, err, "%s %s", tt.c, tt.raw)
			assert.Contains(t, err.Error(), tt.err)
			continue
		}
		require.NoError(t, err, "%s %s", tt.c, tt.raw)
		assert.Equal(t, tt.typ, typ, "%s %s", tt.c, tt.raw)
		assert.Equal(t, tt.value, string(value), "%s %s", tt.c, tt.raw)
		if typ != "" {
			checked, err := tt.c.Check(typ, value)
			require.NoError(t, err, "what Infer gives, Check takes: %s %s", typ, value)
			assert.Equal(t, string(value), string(checked))
		}
	}
}

func TestPortable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ, raw string
		want     bool
	}{
		{"", `"x"`, true}, {"", `true`, true}, {"", `null`, true}, {"", `42`, true}, {"", `9223372036854775807`, true},
		{"", `9223372036854775808`, false}, {"", `1.10`, false}, {"", `1.5`, true}, {"", `{}`, false}, {"", `[1]`, false},
		{String, `"x"`, true}, {Double, `1.10`, true}, {Long, `1`, true}, {"serializable", `1`, true},
		{Date, `"2013-04-17"`, false}, {BigDecimal, `"1"`, false}, {JSON, `{}`, false}, {UUID, `null`, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Portable(tt.typ, json.RawMessage(tt.raw)), "%q %s", tt.typ, tt.raw)
	}
	// Portable means what it says: Oldest and Current type and check it alike.
	for _, tt := range tests {
		if !tt.want {
			continue
		}
		raw := json.RawMessage(tt.raw)
		if tt.typ == "" {
			ot, ov, oerr := Oldest().Infer(raw)
			ct, cv, cerr := Current().Infer(raw)
			assert.Equal(t, []any{ct, string(cv), cerr}, []any{ot, string(ov), oerr}, tt.raw)
			continue
		}
		ov, oerr := Oldest().Check(tt.typ, raw)
		cv, cerr := Current().Check(tt.typ, raw)
		assert.Equal(t, string(cv), string(ov), tt.raw)
		assert.Equal(t, cerr, oerr, tt.raw)
	}
}

func TestParseISODate(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"2013-04-17", "2013-04-17T00:00:00Z"},
		{"2013-04-17T10:17Z", "2013-04-17T10:17:00Z"},
		{"2013-04-17T10:17:43Z", "2013-04-17T10:17:43Z"},
		{"2013-04-17T10:17:43.9Z", "2013-04-17T10:17:43.900Z"},
		{"2013-04-17T10:17:43.90299+02:00", "2013-04-17T08:17:43.902Z"},
		{"2013-04-17T10:17:43-0130", "2013-04-17T11:47:43Z"},
	}
	for _, tt := range tests {
		got, err := ParseISODate(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, FormatInstant(got), tt.in)
	}
	for _, bad := range []string{"2013-04-17T10:17", "2013-04-17T10:17:43", "2013-04-17Z", "2013-13-01", "2013-04-17T25:00Z",
		"2013-04-17T10:17:43.Z", "2013-04-17T10:17+02", "20130417", ""} {
		_, err := ParseISODate(bad)
		assert.Error(t, err, bad)
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"6.5.0.6", "8.0.0", "7.0.0.M1", "7.2.0-SNAPSHOT", "6.5", "", "6..5", "9999.9999.9999.9999.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			require.ErrorIs(t, err, ErrVersion)
			require.True(t, v.IsZero())
			return
		}
		require.Equal(t, strings.TrimSpace(s), v.String())
		again, err := ParseVersion(v.String())
		require.NoError(t, err)
		require.Equal(t, v, again)
		// Every version has at least the oldest types, and no more than
		// the current ones, in the engine's order.
		types := For(v).Types()
		require.Subset(t, types, Oldest().Types())
		require.Subset(t, Types(), types)
	})
}

func FuzzParseISODate(f *testing.F) {
	for _, s := range []string{"2013-04-17", "2013-04-17T10:17Z", "2013-04-17T10:17:43.90299+02:00", "2013-04-17T10:17", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseISODate(s)
		if err != nil {
			return
		}
		// Whatever the old parser takes with an offset, the current one
		// takes too once the fraction is cut to milliseconds and the offset
		// has its colon: both name the same instant.
		if m := isoDate.FindStringSubmatch(s); m != nil && m[5] != "" && (m[4] == "" || len(m[4]) == 3) && len(m[5]) != 5 {
			cur, err := ParseDate(s)
			require.NoError(t, err, s)
			require.True(t, cur.Equal(got), s)
		}
	})
}
