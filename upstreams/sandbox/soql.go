package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// The sandbox data API understands this subset of SOQL, keywords in any case:
//
//	SELECT f1, f2 FROM Type
//	  [WHERE f = value [AND g != value ...]]
//	  [ORDER BY f [ASC|DESC]]
//	  [LIMIT n] [OFFSET m]
//
// A value is a quoted string ('O\'Brien', backslash escapes \' \" \\ \n \r \t),
// a number (-12, 3.5) or NULL. Anything else is MALFORMED_QUERY, as the real
// API answers for syntax it does not accept.

// soqlMaxOffset is the real API's ceiling on OFFSET.
const soqlMaxOffset = 2000

// soqlMaxLimit keeps LIMIT inside what SQLite and the paging arithmetic hold.
const soqlMaxLimit = 1_000_000_000

// soqlError is a query the data API rejects; Code is the errorCode of the
// answer (MALFORMED_QUERY, INVALID_FIELD, INVALID_TYPE ...).
type soqlError struct {
	Code    string
	Message string
}

func (e *soqlError) Error() string { return e.Code + ": " + e.Message }

func malformed(format string, args ...any) *soqlError {
	return &soqlError{Code: "MALFORMED_QUERY", Message: fmt.Sprintf(format, args...)}
}

// soqlValueKind says how a literal was written.
type soqlValueKind int

const (
	soqlString soqlValueKind = iota + 1
	soqlNumber
	soqlNull
)

// soqlValue is one literal of a WHERE condition. Text is the decoded string
// or the number as written.
type soqlValue struct {
	Kind soqlValueKind
	Text string
}

// soqlCondition is `Field Op Value`; Op is "=" or "!=".
type soqlCondition struct {
	Field string
	Op    string
	Value soqlValue
}

// soqlQuery is a parsed query, names as the caller wrote them (not yet
// checked against the record types).
type soqlQuery struct {
	Fields  []string
	Type    string
	Where   []soqlCondition
	OrderBy string
	Desc    bool
	// Limit is -1 when the query has no LIMIT.
	Limit  int
	Offset int
}

// parseSOQL parses q; errors are *soqlError with code MALFORMED_QUERY.
func parseSOQL(q string) (soqlQuery, error) {
	toks, err := soqlTokens(q)
	if err != nil {
		return soqlQuery{}, err
	}
	p := soqlParser{toks: toks}
	return p.query()
}

type soqlParser struct {
	toks []soqlToken
	pos  int
}

func (p *soqlParser) peek() soqlToken {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return soqlToken{kind: tokEOF}
}

func (p *soqlParser) next() soqlToken {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

// keyword consumes the next token when it is the keyword kw.
func (p *soqlParser) keyword(kw string) bool {
	t := p.peek()
	if t.kind == tokIdent && strings.EqualFold(t.text, kw) {
		p.pos++
		return true
	}
	return false
}

func (p *soqlParser) expectKeyword(kw string) error {
	if !p.keyword(kw) {
		return malformed("expecting %s, found %s", kw, p.peek())
	}
	return nil
}

func (p *soqlParser) ident(what string) (string, error) {
	t := p.next()
	if t.kind != tokIdent || isSOQLKeyword(t.text) {
		return "", malformed("expecting %s, found %s", what, t)
	}
	return t.text, nil
}

func (p *soqlParser) query() (soqlQuery, error) {
	q := soqlQuery{Limit: -1}
	if err := p.expectKeyword("SELECT"); err != nil {
		return q, err
	}
	for {
		f, err := p.ident("a field name")
		if err != nil {
			return q, err
		}
		q.Fields = append(q.Fields, f)
		if p.peek().kind != tokComma {
			break
		}
		p.next()
	}
	if err := p.expectKeyword("FROM"); err != nil {
		return q, err
	}
	typ, err := p.ident("an object type")
	if err != nil {
		return q, err
	}
	q.Type = typ
	if p.keyword("WHERE") {
		for {
			c, err := p.condition()
			if err != nil {
				return q, err
			}
			q.Where = append(q.Where, c)
			if !p.keyword("AND") {
				break
			}
		}
	}
	if p.keyword("ORDER") {
		if err := p.expectKeyword("BY"); err != nil {
			return q, err
		}
		if q.OrderBy, err = p.ident("a field name"); err != nil {
			return q, err
		}
		if p.keyword("DESC") {
			q.Desc = true
		} else {
			p.keyword("ASC")
		}
	}
	if p.keyword("LIMIT") {
		if q.Limit, err = p.count("LIMIT", soqlMaxLimit); err != nil {
			return q, err
		}
	}
	if p.keyword("OFFSET") {
		if q.Offset, err = p.count("OFFSET", soqlMaxOffset); err != nil {
			return q, err
		}
	}
	if t := p.peek(); t.kind != tokEOF {
		return q, malformed("unexpected token: %s", t)
	}
	return q, nil
}

func (p *soqlParser) condition() (soqlCondition, error) {
	field, err := p.ident("a field name")
	if err != nil {
		return soqlCondition{}, err
	}
	op := p.next()
	if op.kind != tokOp {
		return soqlCondition{}, malformed("expecting = or !=, found %s", op)
	}
	c := soqlCondition{Field: field, Op: op.text}
	switch v := p.next(); {
	case v.kind == tokString:
		c.Value = soqlValue{Kind: soqlString, Text: v.text}
	case v.kind == tokNumber:
		c.Value = soqlValue{Kind: soqlNumber, Text: v.text}
	case v.kind == tokIdent && strings.EqualFold(v.text, "NULL"):
		c.Value = soqlValue{Kind: soqlNull}
	default:
		return soqlCondition{}, malformed("expecting a value, found %s", v)
	}
	return c, nil
}

// count reads the non-negative integer after LIMIT or OFFSET.
func (p *soqlParser) count(clause string, max int) (int, error) {
	t := p.next()
	if t.kind != tokNumber {
		return 0, malformed("expecting a number after %s, found %s", clause, t)
	}
	n, err := strconv.Atoi(t.text)
	if err != nil || n < 0 {
		return 0, malformed("%s must be a non-negative integer, found %s", clause, t)
	}
	if n > max {
		return 0, &soqlError{Code: "NUMBER_OUTSIDE_VALID_RANGE",
			Message: fmt.Sprintf("maximum %s allowed is %d", clause, max)}
	}
	return n, nil
}

// String writes q back as SOQL that parses to the same query.
func (q soqlQuery) String() string {
	var b strings.Builder
	b.WriteString("SELECT " + strings.Join(q.Fields, ", ") + " FROM " + q.Type)
	for i, c := range q.Where {
		if i == 0 {
			b.WriteString(" WHERE ")
		} else {
			b.WriteString(" AND ")
		}
		b.WriteString(c.Field + " " + c.Op + " " + c.Value.String())
	}
	if q.OrderBy != "" {
		b.WriteString(" ORDER BY " + q.OrderBy)
		if q.Desc {
			b.WriteString(" DESC")
		}
	}
	if q.Limit >= 0 {
		b.WriteString(" LIMIT " + strconv.Itoa(q.Limit))
	}
	if q.Offset > 0 {
		b.WriteString(" OFFSET " + strconv.Itoa(q.Offset))
	}
	return b.String()
}

// String writes v as a SOQL literal.
func (v soqlValue) String() string {
	switch v.Kind {
	case soqlString:
		r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
		return "'" + r.Replace(v.Text) + "'"
	case soqlNumber:
		return v.Text
	}
	return "null"
}

func isSOQLKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "SELECT", "FROM", "WHERE", "AND", "ORDER", "BY", "ASC", "DESC", "LIMIT", "OFFSET", "NULL":
		return true
	}
	return false
}
