package contract

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/envelope"
)

func testOperation() Operation {
	return Operation{Query: []Param{
		{Name: "limit", Type: Integer, Min: 0, Max: 2000, AllowEmpty: true},
		{Name: "status", Enum: []string{"open", "closed"}},
		{Name: "unassigned", Type: Boolean},
		{Name: "q", Required: true, MaxLength: 10},
	}}
}

func TestCheckQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, query, param, reason string
	}{
		{desc: "all well", query: "q=a&limit=10&status=open&unassigned=false"},
		{desc: "an empty limit counts as none", query: "q=a&limit="},
		{desc: "an unknown parameter is named with those taken", query: "q=a&colour=red", param: "colour",
			reason: "not a parameter of this operation; it takes limit, status, unassigned, q"},
		{desc: "every unknown parameter is named", query: "q=a&b=1&a=2", param: "a, b", reason: "not parameters of this operation"},
		{desc: "a required parameter", query: "limit=1", param: "q", reason: "required"},
		{desc: "repeated", query: "q=a&q=b", param: "q", reason: "given more than once"},
		{desc: "empty", query: "q=", param: "q", reason: "must not be empty"},
		{desc: "not an integer", query: "q=a&limit=1e3", param: "limit", reason: "must be an integer from 0 to 2000"},
		{desc: "a sign is no digit", query: "q=a&limit=-1", param: "limit", reason: "must be an integer from 0 to 2000"},
		{desc: "over the bound", query: "q=a&limit=2001", param: "limit", reason: "must be an integer from 0 to 2000"},
		{desc: "not a boolean", query: "q=a&unassigned=yes", param: "unassigned", reason: "must be true or false"},
		{desc: "not one of the values", query: "q=a&status=done", param: "status", reason: "must be open or closed"},
		{desc: "too long", query: "q=" + strings.Repeat("x", 11), param: "q", reason: "must be at most 10 bytes"},
		{desc: "control characters", query: "q=a%00b", param: "q", reason: "must not contain control characters"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			op := testOperation()
			q, err := url.ParseQuery(tt.query)
			require.NoError(t, err)
			err = op.CheckQuery(q)
			if tt.param == "" {
				assert.NoError(t, err)
				return
			}
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, envelope.ParameterInvalid, e.ID)
			assert.Equal(t, tt.param, e.Args[0])
			assert.Contains(t, e.Args[1], tt.reason)
		})
	}
	op := testOperation()
	assert.Error(t, op.CheckEmpty(), "q is required")
	assert.NoError(t, (&Operation{}).CheckEmpty())
}

func TestCheckQueryAllocatesNothingWhenValid(t *testing.T) {
	op := testOperation()
	q := url.Values{"q": {"a"}, "limit": {"10"}}
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = op.CheckQuery(q) }))
}

// FuzzCheckQuery: whatever the query, the check refuses or passes without
// panicking, and a refusal names a parameter in valid UTF-8, bounded.
func FuzzCheckQuery(f *testing.F) {
	for _, s := range []string{"q=a", "limit=1&q=a", "x=1", "q=%ff", "q=a&q=b", "limit=99999999999999999999"} {
		f.Add(s)
	}
	op := testOperation()
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		err = op.CheckQuery(q)
		if err == nil {
			return
		}
		e, ok := err.(*envelope.Error)
		if !ok || e.ID != envelope.ParameterInvalid || len(e.Args) != 2 {
			t.Fatalf("not a PARAMETER_INVALID: %v", err)
		}
		if !utf8.ValidString(e.Args[0]) || len(e.Args[0]) > 1000 {
			t.Fatalf("parameter name %q", e.Args[0])
		}
	})
}
