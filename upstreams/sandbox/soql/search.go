package soql

import (
	"errors"
	"fmt"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// MaxSearchLimit is the real API's ceiling on search results.
const MaxSearchLimit = 2000

// Target is one RETURNING entry.
type Target struct {
	Type   string
	Fields []string
}

// Search is a parsed search.
type Search struct {
	// Term is the decoded term, wildcards kept as * and ?, escapes removed
	// from everything but wildcards.
	Term      string
	Returning []Target
	// Limit is -1 when the search has no LIMIT.
	Limit int
}

func malformedSearch(format string, args ...any) *Error {
	return &Error{Code: "MALFORMED_SEARCH", Message: fmt.Sprintf(format, args...)}
}

// asSearchError re-codes an error of the shared SOQL lexer or parser as
// MALFORMED_SEARCH, the one code the real API answers for SOSL syntax.
func asSearchError(err error) error {
	var qe *Error
	if errors.As(err, &qe) {
		return malformedSearch("%s", qe.Message)
	}
	return err
}

// ParseSearch parses s, a search of this subset of SOSL, keywords in any
// case:
//
//	FIND {term} [IN ALL FIELDS | IN NAME FIELDS]
//	  [RETURNING Type [(f1, f2)] [, Type [(f1)] ...]]
//	  [LIMIT n]
//
// The term matches the Name field as a case-insensitive substring; * stands
// for any characters and ? for one; \{ \} \\ \* \? escape. Without RETURNING
// every type is searched; without a field list a record carries only its Id.
// Anything else is MALFORMED_SEARCH: errors are *Error with that code.
func ParseSearch(s string) (Search, error) {
	out := Search{Limit: -1}
	rest := strings.TrimLeft(s, " \t\r\n")
	if len(rest) < 4 || !strings.EqualFold(rest[:4], "FIND") {
		return out, malformedSearch("expecting FIND")
	}
	rest = strings.TrimLeft(rest[4:], " \t\r\n")
	term, n, err := searchTerm(rest)
	if err != nil {
		return out, err
	}
	out.Term = term
	toks, err := tokens(rest[n:])
	if err != nil {
		return out, asSearchError(err)
	}
	p := parser{toks: toks}
	if p.keyword("IN") {
		if !p.keyword("ALL") && !p.keyword("NAME") {
			return out, malformedSearch("expecting ALL or NAME after IN, found %s", p.peek())
		}
		if !p.keyword("FIELDS") {
			return out, malformedSearch("expecting FIELDS, found %s", p.peek())
		}
	}
	if p.keyword("RETURNING") {
		for {
			t, err := returning(&p)
			if err != nil {
				return out, err
			}
			out.Returning = append(out.Returning, t)
			if p.peek().kind != tokComma {
				break
			}
			p.next()
		}
	}
	if p.keyword("LIMIT") {
		if out.Limit, err = p.count("LIMIT", MaxSearchLimit); err != nil {
			return out, asSearchError(err)
		}
	}
	if t := p.peek(); t.kind != tokEOF {
		return out, malformedSearch("unexpected token: %s", t)
	}
	return out, nil
}

// searchTerm reads "{term}" at the start of s and returns the term with the
// bytes it took. The term must hold at least two characters, as in the real
// API.
func searchTerm(s string) (string, int, error) {
	if s == "" || s[0] != '{' {
		return "", 0, malformedSearch("expecting {search term} after FIND")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '}':
			term := strings.TrimSpace(b.String())
			if len(strings.Trim(term, "*?")) < 2 {
				return "", 0, malformedSearch("search term must be longer than one character: %s", term)
			}
			return term, i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, malformedSearch("unterminated search term")
			}
			i++
			if s[i] == '*' || s[i] == '?' || s[i] == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		case '{':
			return "", 0, malformedSearch("unescaped { in search term")
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, malformedSearch("unterminated search term")
}

func returning(p *parser) (Target, error) {
	t := p.next()
	if t.kind != tokIdent || isKeyword(t.text) {
		return Target{}, malformedSearch("expecting an object type, found %s", t)
	}
	target := Target{Type: t.text}
	if p.peek().kind != tokLParen {
		return target, nil
	}
	p.next()
	for {
		f := p.next()
		if f.kind != tokIdent || isKeyword(f.text) {
			return Target{}, malformedSearch("expecting a field name, found %s", f)
		}
		target.Fields = append(target.Fields, f.text)
		sep := p.next()
		if sep.kind == tokRParen {
			return target, nil
		}
		if sep.kind != tokComma {
			return Target{}, malformedSearch("expecting , or ), found %s", sep)
		}
	}
}

// LikePattern turns the term into a LIKE pattern (with ESCAPE '\') that
// matches it anywhere in the field.
func (s Search) LikePattern() string {
	var b strings.Builder
	b.WriteByte('%')
	for i := 0; i < len(s.Term); i++ {
		switch c := s.Term[i]; c {
		case '\\':
			if i+1 < len(s.Term) {
				i++
				likeEscape(&b, s.Term[i])
			}
		case '*':
			b.WriteByte('%')
		case '?':
			b.WriteByte('_')
		default:
			likeEscape(&b, c)
		}
	}
	b.WriteByte('%')
	return b.String()
}

// likeEscape writes one byte of the term, escaping LIKE's own wildcards. It
// works on bytes, not runes, so that a multi-byte character passes through
// unchanged.
func likeEscape(b *strings.Builder, c byte) {
	if c == '%' || c == '_' || c == '\\' {
		b.WriteByte('\\')
	}
	b.WriteByte(c)
}

// SearchTarget is a RETURNING entry checked against a Schema.
type SearchTarget struct {
	Type   Object
	Fields []sfdc.Field
}

// Bind resolves the RETURNING types and fields against schema; without
// RETURNING every type of schema is searched and returns its Id. Unknown
// type: INVALID_TYPE; unknown field: INVALID_FIELD.
func (s Search) Bind(schema Schema) ([]SearchTarget, error) {
	if len(s.Returning) == 0 {
		var all []SearchTarget
		for _, t := range schema {
			id, _ := t.Field("Id")
			all = append(all, SearchTarget{Type: t, Fields: []sfdc.Field{id}})
		}
		return all, nil
	}
	var out []SearchTarget
	for _, r := range s.Returning {
		t, ok := schema.Lookup(r.Type)
		if !ok {
			return nil, &Error{Code: "INVALID_TYPE",
				Message: fmt.Sprintf("sObject type '%s' is not supported.", r.Type)}
		}
		target := SearchTarget{Type: t}
		names := r.Fields
		if len(names) == 0 {
			names = []string{"Id"}
		}
		for _, name := range names {
			f, err := bindField(t, name)
			if err != nil {
				return nil, err
			}
			target.Fields = append(target.Fields, f)
		}
		out = append(out, target)
	}
	return out, nil
}

// SQL selects Id then the target's fields of the records whose Name matches
// the first parameter (a LikePattern), at most as many as the second.
func (t SearchTarget) SQL() string {
	return t.Type.SelectSQL(t.Fields) + ` WHERE "Name" LIKE ? ESCAPE '\' ORDER BY rowid LIMIT ?`
}
