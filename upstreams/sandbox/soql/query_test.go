package soql

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

func TestParseSOQL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want Query
	}{
		{
			desc: "fields and type",
			in:   "SELECT Id, Name FROM Account",
			want: Query{Fields: []string{"Id", "Name"}, Type: "Account", Limit: -1},
		},
		{
			desc: "keywords in any case, newlines",
			in:   "select Id\nfrom Contact\twhere LastName = 'Lee' and Email != null order by Name desc limit 10 offset 5",
			want: Query{Fields: []string{"Id"}, Type: "Contact", Where: []Condition{
				{Field: "LastName", Op: "=", Value: Value{Kind: StringValue, Text: "Lee"}},
				{Field: "Email", Op: "!=", Value: Value{Kind: NullValue}},
			}, OrderBy: "Name", Desc: true, Limit: 10, Offset: 5},
		},
		{
			desc: "escaped quote and backslash",
			in:   `SELECT Id FROM Contact WHERE LastName = 'O\'Brien \\ x'`,
			want: Query{Fields: []string{"Id"}, Type: "Contact", Limit: -1, Where: []Condition{
				{Field: "LastName", Op: "=", Value: Value{Kind: StringValue, Text: `O'Brien \ x`}},
			}},
		},
		{
			desc: "numbers and ascending order",
			in:   "SELECT Name FROM Account WHERE NumberOfEmployees = 250 AND Total_Assets__c = -1.5 ORDER BY Name ASC LIMIT 0",
			want: Query{Fields: []string{"Name"}, Type: "Account", Where: []Condition{
				{Field: "NumberOfEmployees", Op: "=", Value: Value{Kind: NumberValue, Text: "250"}},
				{Field: "Total_Assets__c", Op: "=", Value: Value{Kind: NumberValue, Text: "-1.5"}},
			}, OrderBy: "Name", Limit: 0},
		},
		{
			desc: "SQL in a string stays a string",
			in:   "SELECT Id FROM Account WHERE Name = 'x\\' OR 1=1 --'",
			want: Query{Fields: []string{"Id"}, Type: "Account", Limit: -1, Where: []Condition{
				{Field: "Name", Op: "=", Value: Value{Kind: StringValue, Text: "x' OR 1=1 --"}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := ParseQuery(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := ParseQuery(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again)
		})
	}
}

func TestParseSOQLRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		code string
	}{
		{desc: "empty", in: "", code: "MALFORMED_QUERY"},
		{desc: "no FROM", in: "SELECT Id Account", code: "MALFORMED_QUERY"},
		{desc: "no field", in: "SELECT FROM Account", code: "MALFORMED_QUERY"},
		{desc: "trailing comma", in: "SELECT Id, FROM Account", code: "MALFORMED_QUERY"},
		{desc: "unterminated string", in: "SELECT Id FROM Account WHERE Name = 'x", code: "MALFORMED_QUERY"},
		{desc: "bad escape", in: `SELECT Id FROM Account WHERE Name = '\x'`, code: "MALFORMED_QUERY"},
		{desc: "unsupported operator", in: "SELECT Id FROM Account WHERE Name LIKE 'x'", code: "MALFORMED_QUERY"},
		{desc: "OR is not in the subset", in: "SELECT Id FROM Account WHERE Name = 'a' OR Name = 'b'", code: "MALFORMED_QUERY"},
		{desc: "semicolon", in: "SELECT Id FROM Account; DROP TABLE accounts", code: "MALFORMED_QUERY"},
		{desc: "quoted identifier", in: `SELECT "Id" FROM Account`, code: "MALFORMED_QUERY"},
		{desc: "negative limit", in: "SELECT Id FROM Account LIMIT -1", code: "MALFORMED_QUERY"},
		{desc: "fractional limit", in: "SELECT Id FROM Account LIMIT 1.5", code: "MALFORMED_QUERY"},
		{desc: "offset over 2000", in: "SELECT Id FROM Account OFFSET 2001", code: "NUMBER_OUTSIDE_VALID_RANGE"},
		{desc: "OFFSET before LIMIT", in: "SELECT Id FROM Account OFFSET 1 LIMIT 2", code: "MALFORMED_QUERY"},
		{desc: "keyword as field", in: "SELECT Id FROM Account ORDER BY LIMIT", code: "MALFORMED_QUERY"},
		{desc: "value is a field", in: "SELECT Id FROM Account WHERE Name = Site", code: "MALFORMED_QUERY"},
		{desc: "too long", in: "SELECT Id FROM Account WHERE Name = '" + strings.Repeat("a", maxLen) + "'", code: "MALFORMED_QUERY"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := ParseQuery(tt.in)
			var qe *Error
			require.True(t, errors.As(err, &qe), "error %v", err)
			assert.Equal(t, tt.code, qe.Code)
		})
	}
}

func TestSOQLBind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		in       string
		code     string
		wantSQL  string
		wantArgs []any
	}{
		{
			desc:     "names are made canonical, values are parameters",
			in:       "select name, ID from account where billingcity = 'Paris' and numberofemployees != 10 order by NAME desc",
			wantSQL:  `SELECT "Id", "Name", "Id" FROM accounts WHERE "BillingCity" = ? AND ("NumberOfEmployees" <> ? OR "NumberOfEmployees" IS NULL) ORDER BY "Name" DESC, rowid LIMIT ? OFFSET ?`,
			wantArgs: []any{"Paris", int64(10), 5, 3},
		},
		{
			desc:     "null comparisons need no parameter",
			in:       "SELECT Email FROM Contact WHERE AccountId = null AND Email != NULL OFFSET 1",
			wantSQL:  `SELECT "Id", "Email" FROM contacts WHERE "AccountId" IS NULL AND "Email" IS NOT NULL ORDER BY rowid LIMIT ? OFFSET ?`,
			wantArgs: []any{5, 4},
		},
		{desc: "unknown type", in: "SELECT Id FROM Opportunity", code: "INVALID_TYPE"},
		{desc: "unknown field", in: "SELECT Id, Nme FROM Account", code: "INVALID_FIELD"},
		{desc: "unknown where field", in: "SELECT Id FROM Account WHERE Email = 'x'", code: "INVALID_FIELD"},
		{desc: "unknown order field", in: "SELECT Id FROM Contact ORDER BY Site", code: "INVALID_FIELD"},
		{desc: "duplicate field", in: "SELECT Name, name FROM Account", code: "MALFORMED_QUERY"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			q, err := ParseQuery(tt.in)
			require.NoError(t, err)
			b, err := q.Bind(testSchema())
			if tt.code != "" {
				var qe *Error
				require.True(t, errors.As(err, &qe), "error %v", err)
				assert.Equal(t, tt.code, qe.Code)
				return
			}
			require.NoError(t, err)
			gotSQL, gotArgs := b.PageSQL(3, 5)
			assert.Equal(t, tt.wantSQL, gotSQL)
			assert.Equal(t, tt.wantArgs, gotArgs)
		})
	}
}

func TestSOQLTotal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc           string
		limit, offset  int
		matched, total int
	}{
		{desc: "no limit", limit: -1, matched: 12, total: 12},
		{desc: "limit caps", limit: 5, matched: 12, total: 5},
		{desc: "offset skips", limit: -1, offset: 10, matched: 12, total: 2},
		{desc: "offset past the end", limit: 3, offset: 20, matched: 12, total: 0},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			b := Bound{Limit: tt.limit, Offset: tt.offset}
			assert.Equal(t, tt.total, b.Total(tt.matched))
		})
	}
}

// testSchema is the data API's two record types, over the tables and
// fields the sandbox keeps them in.
func testSchema() Schema {
	return Schema{
		{Name: "Account", Table: "accounts", Fields: sfdc.AccountFields()},
		{Name: "Contact", Table: "contacts", Fields: sfdc.ContactFields()},
	}
}

// safeSQL matches only SQL whose every name is a quoted identifier and whose
// every value is a parameter.
func safeSQL() *regexp.Regexp {
	col := `"[A-Za-z_]+"`
	cond := `(` + col + ` = \?|` + col + ` IS NULL|` + col + ` IS NOT NULL|\(` + col + ` <> \? OR ` + col + ` IS NULL\))`
	return regexp.MustCompile(`^SELECT "Id"(, ` + col + `)* FROM (accounts|contacts)` +
		`( WHERE ` + cond + `( AND ` + cond + `)*)? ORDER BY (` + col + ` (ASC|DESC), )?rowid LIMIT \? OFFSET \?$`)
}

func FuzzParseSOQL(f *testing.F) {
	for _, s := range []string{
		"SELECT Id, Name FROM Account",
		"select Id from Contact where LastName = 'Lee' and Email != null order by Name desc limit 10 offset 5",
		`SELECT Id FROM Contact WHERE LastName = 'O\'Brien'`,
		"SELECT Name FROM Account WHERE NumberOfEmployees = 250 ORDER BY Name ASC LIMIT 0",
		"SELECT Id FROM Account; DROP TABLE accounts",
		"SELECT Id FROM Account WHERE Name = 'x' OR 1=1",
		"SELECT Id, FROM",
		"'",
	} {
		f.Add(s)
	}
	re := safeSQL()
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ParseQuery(in)
		if err != nil {
			var qe *Error
			require.True(t, errors.As(err, &qe), "error %v is not a *Error", err)
			return
		}
		again, err := ParseQuery(q.String())
		require.NoError(t, err, "re-parsing %q", q.String())
		require.Equal(t, q, again)
		b, err := q.Bind(testSchema())
		if err != nil {
			return
		}
		query, args := b.PageSQL(7, 3)
		require.Regexp(t, re, query)
		require.Equal(t, strings.Count(query, "?"), len(args))
		count, countArgs := b.CountSQL()
		require.Equal(t, strings.Count(count, "?"), len(countArgs))
	})
}

func BenchmarkParseAndBindSOQL(b *testing.B) {
	const q = "SELECT Id, Name, BillingCity, Phone FROM Account WHERE BillingCity = 'Paris' AND Type != null ORDER BY Name DESC LIMIT 50 OFFSET 10"
	schema := testSchema()
	b.ReportAllocs()
	for b.Loop() {
		parsed, err := ParseQuery(q)
		if err != nil {
			b.Fatal(err)
		}
		bound, err := parsed.Bind(schema)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = bound.PageSQL(0, 2000)
	}
}
