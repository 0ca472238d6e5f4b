package soql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// Bound is a query checked against a Schema: every name is the canonical
// field of its type, so the SQL built from it quotes only known column
// names and carries every value as a parameter.
type Bound struct {
	Type Object
	// Fields are the selected fields of Type itself.
	Fields []sfdc.Field
	// Parents are the relationships whose fields are selected
	// (Account.Name), one per relationship.
	Parents []*BoundParent
	// Children are the subqueries.
	Children []*BoundChild
	// Items are the members of a record in SELECT order: a field, a parent
	// (at its first field) or a child relationship.
	Items   []Item
	Where   []BoundCondition
	OrderBy *sfdc.Field
	Desc    bool
	Limit   int
	Offset  int
}

// BoundParent is a child-to-parent relationship of a query.
type BoundParent struct {
	Relationship string
	// Ref is the reference field of the query's type holding the parent's Id.
	Ref    sfdc.Field
	Target Object
	Fields []sfdc.Field
}

// BoundChild is a parent-to-child subquery: Query's records whose Via
// field holds the parent's Id.
type BoundChild struct {
	Relationship string
	Via          sfdc.Field
	Query        Bound
	// source is the subquery as a query of the child type, for the
	// locator of its next batch.
	source Query
}

// For is the subquery restricted to the children of parentID: its records
// are a child batch, and its String the query a child locator carries.
func (c *BoundChild) For(parentID string) (Query, Bound) {
	cond := Condition{Field: c.Via.Name, Op: "=", Value: Value{Kind: StringValue, Text: parentID}}
	q := c.source
	q.Where = append(append([]Condition(nil), q.Where...), cond)
	b := c.Query
	b.Where = append(append([]BoundCondition(nil), b.Where...), BoundCondition{Field: c.Via, Op: "=", Value: cond.Value})
	return q, b
}

// Item is one member of a record: exactly one field is set.
type Item struct {
	Field  *sfdc.Field
	Parent *BoundParent
	Child  *BoundChild
}

// Columns are the columns a page selects after Id: the selected fields,
// then the reference fields the parents need that are not selected.
func (b Bound) Columns() []sfdc.Field {
	cols := append([]sfdc.Field(nil), b.Fields...)
	for _, p := range b.Parents {
		if !slices.ContainsFunc(cols, func(f sfdc.Field) bool { return f.Name == p.Ref.Name }) {
			cols = append(cols, p.Ref)
		}
	}
	return cols
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
	sub := 0
	for i := 0; i <= len(q.Fields); i++ {
		for ; sub < len(q.Subqueries) && q.Subqueries[sub].After == i; sub++ {
			c, err := bindChild(schema, t, q.Subqueries[sub].Query)
			if err != nil {
				return Bound{}, err
			}
			if seen["("+c.Relationship] {
				return Bound{}, malformed("duplicate subquery: %s", c.Relationship)
			}
			seen["("+c.Relationship] = true
			b.Children = append(b.Children, c)
			b.Items = append(b.Items, Item{Child: c})
		}
		if i == len(q.Fields) {
			break
		}
		name := q.Fields[i]
		if rel, field, dotted := strings.Cut(name, "."); dotted {
			p, f, err := bindPath(schema, t, rel, field)
			if err != nil {
				return Bound{}, err
			}
			if seen[p.Relationship+"."+f.Name] {
				return Bound{}, malformed("duplicate field selected: %s.%s", p.Relationship, f.Name)
			}
			seen[p.Relationship+"."+f.Name] = true
			var bp *BoundParent
			for _, have := range b.Parents {
				if have.Relationship == p.Relationship {
					bp = have
				}
			}
			if bp == nil {
				bp = &BoundParent{Relationship: p.Relationship, Ref: p.Ref, Target: p.Target}
				b.Parents = append(b.Parents, bp)
				b.Items = append(b.Items, Item{Parent: bp})
			}
			bp.Fields = append(bp.Fields, f)
			continue
		}
		f, err := bindField(t, name)
		if err != nil {
			return Bound{}, err
		}
		if seen[f.Name] {
			return Bound{}, malformed("duplicate field selected: %s", f.Name)
		}
		seen[f.Name] = true
		b.Fields = append(b.Fields, f)
		b.Items = append(b.Items, Item{Field: &b.Fields[len(b.Fields)-1]})
	}
	// Items point into Fields, which append may have moved.
	n := 0
	for i := range b.Items {
		if b.Items[i].Field != nil {
			b.Items[i].Field = &b.Fields[n]
			n++
		}
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

// bindPath resolves Relationship.Field: one level, as the sandbox serves.
func bindPath(schema Schema, t Object, rel, field string) (*BoundParent, sfdc.Field, error) {
	r, ok := t.Reference(rel)
	if !ok || strings.Contains(field, ".") {
		return nil, sfdc.Field{}, &Error{Code: "INVALID_FIELD",
			Message: fmt.Sprintf("Didn't understand relationship '%s' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name.", rel)}
	}
	target, ok := schema.Lookup(r.Target)
	if !ok {
		return nil, sfdc.Field{}, &Error{Code: "INVALID_TYPE", Message: fmt.Sprintf("sObject type '%s' is not supported.", r.Target)}
	}
	ref, _ := t.Field(r.Field)
	f, err := bindField(target, field)
	if err != nil {
		return nil, sfdc.Field{}, err
	}
	return &BoundParent{Relationship: r.Relationship, Ref: ref, Target: target}, f, nil
}

// bindChild resolves a subquery whose type is a child relationship of t.
func bindChild(schema Schema, t Object, q Query) (*BoundChild, error) {
	c, ok := t.Child(q.Type)
	if !ok {
		return nil, &Error{Code: "INVALID_TYPE",
			Message: fmt.Sprintf("Didn't understand relationship '%s' in FROM part of query call.", q.Type)}
	}
	child, ok := schema.Lookup(c.Child)
	if !ok {
		return nil, &Error{Code: "INVALID_TYPE", Message: fmt.Sprintf("sObject type '%s' is not supported.", c.Child)}
	}
	q.Type = child.Name
	bound, err := q.Bind(schema)
	if err != nil {
		return nil, err
	}
	if len(bound.Parents) > 0 || len(bound.Children) > 0 {
		return nil, malformed("a subquery selects fields of its own type only")
	}
	via, _ := child.Field(c.Field)
	return &BoundChild{Relationship: c.Relationship, Via: via, Query: bound, source: q}, nil
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
	sb.WriteString(b.Type.SelectSQL(b.Columns()))
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
