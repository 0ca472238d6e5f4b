package soql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// Bound is a query checked against a Schema: every name is the canonical
// field of its type, so the SQL built from it quotes only known column
// names and carries every value as a parameter.
type Bound struct {
	Type    Object
	Fields  []sfdc.Field
	Where   []BoundCondition
	OrderBy *sfdc.Field
	Desc    bool
	Limit   int
	Offset  int
}

// BoundCondition is a WHERE condition whose field is resolved.
type BoundCondition struct {
	Field sfdc.Field
	Op    string
	Value Value
}

// Bind resolves q's names against schema. Unknown type: INVALID_TYPE;
// unknown field: INVALID_FIELD; a field selected twice: MALFORMED_QUERY (as
// the real API).
func (q Query) Bind(schema Schema) (Bound, error) {
	t, ok := schema.Lookup(q.Type)
	if !ok {
		return Bound{}, &Error{Code: "INVALID_TYPE",
			Message: fmt.Sprintf("sObject type '%s' is not supported.", q.Type)}
	}
	b := Bound{Type: t, Desc: q.Desc, Limit: q.Limit, Offset: q.Offset}
	seen := make(map[string]bool, len(q.Fields))
	for _, name := range q.Fields {
		f, err := bindField(t, name)
		if err != nil {
			return Bound{}, err
		}
		if seen[f.Name] {
			return Bound{}, malformed("duplicate field selected: %s", f.Name)
		}
		seen[f.Name] = true
		b.Fields = append(b.Fields, f)
	}
	for _, c := range q.Where {
		f, err := bindField(t, c.Field)
		if err != nil {
			return Bound{}, err
		}
		b.Where = append(b.Where, BoundCondition{Field: f, Op: c.Op, Value: c.Value})
	}
	if q.OrderBy != "" {
		f, err := bindField(t, q.OrderBy)
		if err != nil {
			return Bound{}, err
		}
		b.OrderBy = &f
	}
	return b, nil
}

func bindField(t Object, name string) (sfdc.Field, error) {
	f, ok := t.Field(name)
	if !ok {
		return sfdc.Field{}, &Error{Code: "INVALID_FIELD",
			Message: fmt.Sprintf("No such column '%s' on entity '%s'.", name, t.Name)}
	}
	return f, nil
}

// where is the WHERE clause (with its leading space) and its parameters.
func (b Bound) where() (string, []any) {
	if len(b.Where) == 0 {
		return "", nil
	}
	var sb strings.Builder
	var args []any
	for i, c := range b.Where {
		if i == 0 {
			sb.WriteString(" WHERE ")
		} else {
			sb.WriteString(" AND ")
		}
		col := quoteColumn(c.Field.Name)
		switch {
		case c.Value.Kind == NullValue && c.Op == "=":
			sb.WriteString(col + " IS NULL")
		case c.Value.Kind == NullValue:
			sb.WriteString(col + " IS NOT NULL")
		case c.Op == "=":
			sb.WriteString(col + " = ?")
			args = append(args, c.Value.arg())
		default:
			// SOQL's != matches records whose field is null, SQL's <> does not.
			sb.WriteString("(" + col + " <> ? OR " + col + " IS NULL)")
			args = append(args, c.Value.arg())
		}
	}
	return sb.String(), args
}

// PageSQL selects Id (for the record URL) then the selected fields, for the
// records at positions [pos, pos+n) of the query's result, and returns the
// statement with its parameters.
func (b Bound) PageSQL(pos, n int) (string, []any) {
	var sb strings.Builder
	sb.WriteString(b.Type.SelectSQL(b.Fields))
	where, args := b.where()
	sb.WriteString(where)
	sb.WriteString(" ORDER BY ")
	if b.OrderBy != nil {
		sb.WriteString(quoteColumn(b.OrderBy.Name))
		if b.Desc {
			sb.WriteString(" DESC")
		} else {
			sb.WriteString(" ASC")
		}
		sb.WriteString(", ")
	}
	// rowid keeps pages stable: without a total order, a continued query
	// could repeat or skip records.
	sb.WriteString("rowid LIMIT ? OFFSET ?")
	return sb.String(), append(args, n, b.Offset+pos)
}

// CountSQL counts the records the WHERE clause matches (before LIMIT and
// OFFSET, which Total applies), and returns the statement with its
// parameters.
func (b Bound) CountSQL() (string, []any) {
	where, args := b.where()
	return "SELECT COUNT(*) FROM " + b.Type.Table + where, args
}

// Total is the answer's totalSize for matched records: those left after
// OFFSET, capped by LIMIT.
func (b Bound) Total(matched int) int {
	n := max(matched-b.Offset, 0)
	if b.Limit >= 0 {
		n = min(n, b.Limit)
	}
	return n
}

// arg is the SQL parameter of a literal.
func (v Value) arg() any {
	if v.Kind == NumberValue {
		if n, err := strconv.ParseInt(v.Text, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(v.Text, 64); err == nil {
			return f
		}
	}
	return v.Text
}
