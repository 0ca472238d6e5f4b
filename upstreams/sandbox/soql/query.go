// Package soql is the query language of the sandbox data API: a lexer and
// parser for the subset of SOQL (queries) and SOSL (searches) it serves, and
// their translation to SQLite statements over the tables of a Schema. Every
// name in the SQL comes from the Schema, never from the query text, and
// every value is a parameter. Errors are *Error, carrying the errorCode the
// real API answers with.
//
// The SOQL subset, keywords in any case:
//
//	SELECT f1, f2 FROM Type
//	  [WHERE f = value [AND g != value ...]]
//	  [ORDER BY f [ASC|DESC]]
//	  [LIMIT n] [OFFSET m]
//
// A value is a quoted string ('O\'Brien', backslash escapes \' \" \\ \n \r \t),
// a number (-12, 3.5) or NULL. Anything else is MALFORMED_QUERY, as the real
// API answers for syntax it does not accept. The SOSL subset is described at
// ParseSearch.
package soql

import (
	"fmt"
	"strconv"
	"strings"
)

// maxOffset is the real API's ceiling on OFFSET.
const maxOffset = 2000

// maxLimit keeps LIMIT inside what SQLite and the paging arithmetic hold.
const maxLimit = 1_000_000_000

// Error is a query or search the data API rejects: the caller's fault, a
// 400 with Code as the errorCode of the answer (MALFORMED_QUERY,
// MALFORMED_SEARCH, INVALID_FIELD, INVALID_TYPE,
// NUMBER_OUTSIDE_VALID_RANGE) and Message as its message.
type Error struct {
	Code    string
	Message string
}

// Error is the code and the message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

func malformed(format string, args ...any) *Error {
	return &Error{Code: "MALFORMED_QUERY", Message: fmt.Sprintf(format, args...)}
}

// ValueKind says how a literal was written.
type ValueKind int

// The kinds of literal.
const (
	StringValue ValueKind = iota + 1
	NumberValue
	NullValue
)

// Value is one literal of a WHERE condition. Text is the decoded string
// or the number as written.
type Value struct {
	Kind ValueKind
	Text string
}

// Condition is `Field Op Value`; Op is "=" or "!=".
type Condition struct {
	Field string
	Op    string
	Value Value
}

// Query is a parsed query, names as the caller wrote them (not yet
// checked against the record types). A field may be a relationship path
// (Account.Name: a field of the record a reference field points to); a
// subquery selects the records of a child relationship (Contacts), with
// its Type the relationship's name.
type Query struct {
	Fields []string
	// Subqueries are the parent-to-child subqueries, each after
	// Subquery.After of Fields.
	Subqueries []Subquery
	Type       string
	Where      []Condition
	OrderBy    string
	Desc       bool
	// Limit is -1 when the query has no LIMIT.
	Limit  int
	Offset int
}

// Subquery is a parent-to-child subquery in a SELECT list.
type Subquery struct {
	// After is how many of the query's Fields precede it.
	After int
	Query Query
}

// ParseQuery parses q; errors are *Error with code MALFORMED_QUERY.
func ParseQuery(q string) (Query, error) {
	toks, err := tokens(q)
	if err != nil {
		return Query{}, err
	}
	p := parser{toks: toks}
	return p.query(false)
}

type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{kind: tokEOF}
}

func (p *parser) next() token {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

// keyword consumes the next token when it is the keyword kw.
func (p *parser) keyword(kw string) bool {
	t := p.peek()
	if t.kind == tokIdent && strings.EqualFold(t.text, kw) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectKeyword(kw string) error {
	if !p.keyword(kw) {
		return malformed("expecting %s, found %s", kw, p.peek())
	}
	return nil
}

func (p *parser) ident(what string) (string, error) {
	t := p.next()
	if t.kind != tokIdent || isKeyword(t.text) {
		return "", malformed("expecting %s, found %s", what, t)
	}
	return t.text, nil
}

// query parses a query; nested, a subquery up to its closing parenthesis,
// which is left for the caller.
func (p *parser) query(nested bool) (Query, error) {
	q := Query{Limit: -1}
	if err := p.expectKeyword("SELECT"); err != nil {
		return q, err
	}
	for {
		if !nested && p.peek().kind == tokLParen {
			// One level of parent-to-child subquery, as the real API.
			p.next()
			sub, err := p.query(true)
			if err != nil {
				return q, err
			}
			if t := p.next(); t.kind != tokRParen {
				return q, malformed("expecting ')', found %s", t)
			}
			q.Subqueries = append(q.Subqueries, Subquery{After: len(q.Fields), Query: sub})
		} else {
			f, err := p.ident("a field name")
			if err != nil {
				return q, err
			}
			q.Fields = append(q.Fields, f)
		}
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
		if q.Limit, err = p.count("LIMIT", maxLimit); err != nil {
			return q, err
		}
	}
	if p.keyword("OFFSET") {
		if q.Offset, err = p.count("OFFSET", maxOffset); err != nil {
			return q, err
		}
	}
	if t := p.peek(); t.kind != tokEOF && !(nested && t.kind == tokRParen) {
		return q, malformed("unexpected token: %s", t)
	}
	return q, nil
}

func (p *parser) condition() (Condition, error) {
	field, err := p.ident("a field name")
	if err != nil {
		return Condition{}, err
	}
	op := p.next()
	if op.kind != tokOp {
		return Condition{}, malformed("expecting = or !=, found %s", op)
	}
	c := Condition{Field: field, Op: op.text}
	switch v := p.next(); {
	case v.kind == tokString:
		c.Value = Value{Kind: StringValue, Text: v.text}
	case v.kind == tokNumber:
		c.Value = Value{Kind: NumberValue, Text: v.text}
	case v.kind == tokIdent && strings.EqualFold(v.text, "NULL"):
		c.Value = Value{Kind: NullValue}
	default:
		return Condition{}, malformed("expecting a value, found %s", v)
	}
	return c, nil
}

// count reads the non-negative integer after LIMIT or OFFSET.
func (p *parser) count(clause string, max int) (int, error) {
	t := p.next()
	if t.kind != tokNumber {
		return 0, malformed("expecting a number after %s, found %s", clause, t)
	}
	n, err := strconv.Atoi(t.text)
	if err != nil || n < 0 {
		return 0, malformed("%s must be a non-negative integer, found %s", clause, t)
	}
	if n > max {
		return 0, &Error{Code: "NUMBER_OUTSIDE_VALID_RANGE",
			Message: fmt.Sprintf("maximum %s allowed is %d", clause, max)}
	}
	return n, nil
}

// String writes q back as SOQL that parses to the same query.
func (q Query) String() string {
	var b strings.Builder
	items := make([]string, 0, len(q.Fields)+len(q.Subqueries))
	sub := 0
	for i := 0; i <= len(q.Fields); i++ {
		for sub < len(q.Subqueries) && q.Subqueries[sub].After == i {
			items = append(items, "("+q.Subqueries[sub].Query.String()+")")
			sub++
		}
		if i < len(q.Fields) {
			items = append(items, q.Fields[i])
		}
	}
	b.WriteString("SELECT " + strings.Join(items, ", ") + " FROM " + q.Type)
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
func (v Value) String() string {
	switch v.Kind {
	case StringValue:
		r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
		return "'" + r.Replace(v.Text) + "'"
	case NumberValue:
		return v.Text
	}
	return "null"
}

func isKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "SELECT", "FROM", "WHERE", "AND", "ORDER", "BY", "ASC", "DESC", "LIMIT", "OFFSET", "NULL":
		return true
	}
	return false
}
