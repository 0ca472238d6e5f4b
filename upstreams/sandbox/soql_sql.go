package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// soqlBound is a query checked against the record types: every name is the
// canonical field of its type, so the SQL built from it quotes only known
// column names and carries every value as a parameter.
type soqlBound struct {
	Type    dataType
	Fields  []Field
	Where   []soqlBoundCondition
	OrderBy *Field
	Desc    bool
	Limit   int
	Offset  int
}

type soqlBoundCondition struct {
	Field Field
	Op    string
	Value soqlValue
}

// bind resolves q's names. Unknown type: INVALID_TYPE; unknown field:
// INVALID_FIELD; a field selected twice: MALFORMED_QUERY (as the real API).
func (q soqlQuery) bind() (soqlBound, error) {
	t, ok := lookupDataType(q.Type)
	if !ok {
		return soqlBound{}, &soqlError{Code: "INVALID_TYPE",
			Message: fmt.Sprintf("sObject type '%s' is not supported.", q.Type)}
	}
	b := soqlBound{Type: t, Desc: q.Desc, Limit: q.Limit, Offset: q.Offset}
	seen := make(map[string]bool, len(q.Fields))
	for _, name := range q.Fields {
		f, err := bindField(t, name)
		if err != nil {
			return soqlBound{}, err
		}
		if seen[f.Name] {
			return soqlBound{}, malformed("duplicate field selected: %s", f.Name)
		}
		seen[f.Name] = true
		b.Fields = append(b.Fields, f)
	}
	for _, c := range q.Where {
		f, err := bindField(t, c.Field)
		if err != nil {
			return soqlBound{}, err
		}
		b.Where = append(b.Where, soqlBoundCondition{Field: f, Op: c.Op, Value: c.Value})
	}
	if q.OrderBy != "" {
		f, err := bindField(t, q.OrderBy)
		if err != nil {
			return soqlBound{}, err
		}
		b.OrderBy = &f
	}
	return b, nil
}

func bindField(t dataType, name string) (Field, error) {
	f, ok := t.field(name)
	if !ok {
		return Field{}, &soqlError{Code: "INVALID_FIELD",
			Message: fmt.Sprintf("No such column '%s' on entity '%s'.", name, t.Name)}
	}
	return f, nil
}

// where is the WHERE clause (with its leading space) and its parameters.
func (b soqlBound) where() (string, []any) {
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
		case c.Value.Kind == soqlNull && c.Op == "=":
			sb.WriteString(col + " IS NULL")
		case c.Value.Kind == soqlNull:
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

// pageSQL selects Id (for the record URL) then the selected fields, for the
// records at positions [pos, pos+n) of the query's result.
func (b soqlBound) pageSQL(pos, n int) (string, []any) {
	var sb strings.Builder
	sb.WriteString(selectIDAnd(b.Type, b.Fields))
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

// countSQL counts the records the WHERE clause matches (before LIMIT and
// OFFSET, which totalSize applies itself).
func (b soqlBound) countSQL() (string, []any) {
	where, args := b.where()
	return "SELECT COUNT(*) FROM " + b.Type.Table + where, args
}

// total is totalSize: matched records after OFFSET, capped by LIMIT.
func (b soqlBound) total(matched int) int {
	n := max(matched-b.Offset, 0)
	if b.Limit >= 0 {
		n = min(n, b.Limit)
	}
	return n
}

// arg is the SQL parameter of a literal.
func (v soqlValue) arg() any {
	if v.Kind == soqlNumber {
		if n, err := strconv.ParseInt(v.Text, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(v.Text, 64); err == nil {
			return f
		}
	}
	return v.Text
}

// quoteColumn quotes a column name taken from the record type table, never
// from the query text.
func quoteColumn(name string) string { return `"` + name + `"` }
