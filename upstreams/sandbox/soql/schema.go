package soql

import (
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// Object is a record type a query or a search can name: its API name, the
// table its records are rows of, and its fields, which are the table's
// columns (Id among them).
type Object struct {
	Name   string
	Table  string
	Fields []sfdc.Field
	// References are the child-to-parent relationships of its reference
	// fields (Account through AccountId, Owner through OwnerId).
	References []Reference
	// Children are the parent-to-child relationships other types hold to
	// it (Contacts: Contact records whose AccountId is this record's Id).
	Children []ChildRelation
}

// Reference is a reference field and the relationship it opens.
type Reference struct {
	Field        string
	Relationship string
	Target       string
}

// ChildRelation is a child relationship: records of Child whose Field
// holds the parent's Id.
type ChildRelation struct {
	Relationship string
	Child        string
	Field        string
}

// Reference finds a relationship of o by name, ignoring case.
func (o Object) Reference(name string) (Reference, bool) {
	for _, r := range o.References {
		if strings.EqualFold(r.Relationship, name) {
			return r, true
		}
	}
	return Reference{}, false
}

// Child finds a child relationship of o by name, ignoring case.
func (o Object) Child(name string) (ChildRelation, bool) {
	for _, c := range o.Children {
		if strings.EqualFold(c.Relationship, name) {
			return c, true
		}
	}
	return ChildRelation{}, false
}

// Field finds a field of o by name, ignoring case as the real API does.
func (o Object) Field(name string) (sfdc.Field, bool) {
	for _, f := range o.Fields {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return sfdc.Field{}, false
}

// SelectSQL is the SELECT of Id (for the record's URL) and then fields, from
// o's table. Callers append the rest of the statement.
func (o Object) SelectSQL(fields []sfdc.Field) string {
	var sb strings.Builder
	sb.WriteString(`SELECT "Id"`)
	for _, f := range fields {
		sb.WriteString(", " + quoteColumn(f.Name))
	}
	sb.WriteString(" FROM " + o.Table)
	return sb.String()
}

// Schema is the record types queries and searches are checked against, in
// the order a search without RETURNING goes through them.
type Schema []Object

// Lookup finds a type by name, ignoring case as the real API does.
func (s Schema) Lookup(name string) (Object, bool) {
	for _, o := range s {
		if strings.EqualFold(o.Name, name) {
			return o, true
		}
	}
	return Object{}, false
}

// quoteColumn quotes a column name taken from a Schema, never from the
// query text.
func quoteColumn(name string) string { return `"` + name + `"` }
