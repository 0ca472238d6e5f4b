package sandbox

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSOSL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc        string
		in          string
		want        soslSearch
		wantPattern string
	}{
		{
			desc:        "term only",
			in:          "FIND {Acme}",
			want:        soslSearch{Term: "Acme", Limit: -1},
			wantPattern: "%Acme%",
		},
		{
			desc: "scope, returning with fields, limit",
			in:   "find {Lee} in name fields returning Account, Contact(Name, Email) limit 5",
			want: soslSearch{Term: "Lee", Limit: 5, Returning: []soslTarget{
				{Type: "Account"}, {Type: "Contact", Fields: []string{"Name", "Email"}},
			}},
			wantPattern: "%Lee%",
		},
		{
			desc:        "wildcards and escapes",
			in:          `FIND {50% *corp\} \* a_b?}`,
			want:        soslSearch{Term: `50% *corp} \* a_b?`, Limit: -1},
			wantPattern: `%50\% %corp} * a\_b_%`,
		},
		{
			desc:        "characters beyond ASCII pass through",
			in:          "FIND {Möbler Köln}",
			want:        soslSearch{Term: "Möbler Köln", Limit: -1},
			wantPattern: "%Möbler Köln%",
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := parseSOSL(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantPattern, got.likePattern())
		})
	}
}

func TestParseSOSLRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
	}{
		{desc: "empty", in: ""},
		{desc: "no braces", in: "FIND Acme"},
		{desc: "unterminated", in: "FIND {Acme"},
		{desc: "one character", in: "FIND {a}"},
		{desc: "only wildcards", in: "FIND {**}"},
		{desc: "unknown scope", in: "FIND {Acme} IN PHONE FIELDS"},
		{desc: "returning nothing", in: "FIND {Acme} RETURNING"},
		{desc: "unclosed field list", in: "FIND {Acme} RETURNING Account(Name"},
		{desc: "trailing text", in: "FIND {Acme} ; DELETE"},
		{desc: "limit too large", in: "FIND {Acme} LIMIT 2001"},
		{desc: "nested brace", in: "FIND {Ac{me}"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := parseSOSL(tt.in)
			var qe *soqlError
			require.True(t, errors.As(err, &qe), "error %v", err)
			assert.Equal(t, "MALFORMED_SEARCH", qe.Code)
		})
	}
}

func FuzzParseSOSL(f *testing.F) {
	for _, s := range []string{
		"FIND {Acme}",
		"find {Lee} in name fields returning Account, Contact(Name, Email) limit 5",
		`FIND {50% *corp\} \* a_b?}`,
		"FIND {Acme} RETURNING Account(Name",
		"FIND {",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := parseSOSL(in)
		if err != nil {
			var qe *soqlError
			require.True(t, errors.As(err, &qe), "error %v is not a *soqlError", err)
			return
		}
		p := s.likePattern()
		require.True(t, strings.HasPrefix(p, "%") && strings.HasSuffix(p, "%"), p)
		if utf8.ValidString(in) {
			require.True(t, utf8.ValidString(p), "pattern %q of a valid term is not UTF-8", p)
		}
		targets, err := s.bind()
		if err != nil {
			return
		}
		for _, target := range targets {
			require.Equal(t, 2, strings.Count(target.searchSQL(), "?"))
		}
	})
}

func FuzzQueryLocator(f *testing.F) {
	q, err := parseSOQL("SELECT Id, Name FROM Account WHERE Name = 'a-b' ORDER BY Name LIMIT 7")
	require.NoError(f, err)
	f.Add(encodeQueryLocator(q, 5))
	f.Add("01g-1")
	f.Add("01gAAAA-+3")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, locator string) {
		q, pos, ok := decodeQueryLocator(locator)
		if !ok {
			return
		}
		require.GreaterOrEqual(t, pos, 0)
		q2, pos2, ok := decodeQueryLocator(encodeQueryLocator(q, pos))
		require.True(t, ok)
		assert.Equal(t, q, q2)
		assert.Equal(t, pos, pos2)
	})
}
