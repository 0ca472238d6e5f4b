package soql

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
		want        Search
		wantPattern string
	}{
		{
			desc:        "term only",
			in:          "FIND {Acme}",
			want:        Search{Term: "Acme", Limit: -1},
			wantPattern: "%Acme%",
		},
		{
			desc: "scope, returning with fields, limit",
			in:   "find {Lee} in name fields returning Account, Contact(Name, Email) limit 5",
			want: Search{Term: "Lee", Limit: 5, Returning: []Target{
				{Type: "Account"}, {Type: "Contact", Fields: []string{"Name", "Email"}},
			}},
			wantPattern: "%Lee%",
		},
		{
			desc:        "wildcards and escapes",
			in:          `FIND {50% *corp\} \* a_b?}`,
			want:        Search{Term: `50% *corp} \* a_b?`, Limit: -1},
			wantPattern: `%50\% %corp} * a\_b_%`,
		},
		{
			desc:        "characters beyond ASCII pass through",
			in:          "FIND {Möbler Köln}",
			want:        Search{Term: "Möbler Köln", Limit: -1},
			wantPattern: "%Möbler Köln%",
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSearch(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantPattern, got.LikePattern())
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
			_, err := ParseSearch(tt.in)
			var qe *Error
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
		s, err := ParseSearch(in)
		if err != nil {
			var qe *Error
			require.True(t, errors.As(err, &qe), "error %v is not a *Error", err)
			return
		}
		p := s.LikePattern()
		require.True(t, strings.HasPrefix(p, "%") && strings.HasSuffix(p, "%"), p)
		if utf8.ValidString(in) {
			require.True(t, utf8.ValidString(p), "pattern %q of a valid term is not UTF-8", p)
		}
		targets, err := s.Bind(testSchema())
		if err != nil {
			return
		}
		for _, target := range targets {
			require.Equal(t, 2, strings.Count(target.SQL(), "?"))
		}
	})
}
