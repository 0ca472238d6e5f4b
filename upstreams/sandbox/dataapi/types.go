package dataapi

import (
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
	"github.com/restgate/gateway/upstreams/sandbox/soql"
)

// sobjectType is one record type the data API serves, backed by a table:
// what queries see of it (name, table, fields) and what describe adds.
type sobjectType struct {
	soql.Object
	Label       string
	LabelPlural string
	KeyPrefix   string
	// Children are the relationships other types hold to this one.
	Children []childRelationship
}

// childRelationship is one child relationship of a describe.
type childRelationship struct {
	ChildSObject     string
	Field            string
	RelationshipName string
}

// sobjectTypes returns the served record types in describeGlobal order.
func sobjectTypes() []sobjectType {
	return []sobjectType{
		{
			Object: soql.Object{Name: "Account", Table: "accounts", Fields: sfdc.AccountFields()},
			Label:  "Account", LabelPlural: "Accounts", KeyPrefix: "001",
			Children: []childRelationship{
				{ChildSObject: "Account", Field: "ParentId", RelationshipName: "ChildAccounts"},
				{ChildSObject: "Contact", Field: "AccountId", RelationshipName: "Contacts"},
			},
		},
		{
			Object: soql.Object{Name: "Contact", Table: "contacts", Fields: sfdc.ContactFields()},
			Label:  "Contact", LabelPlural: "Contacts", KeyPrefix: "003",
		},
	}
}

// schema is what queries and searches are checked against: every served
// type, in describeGlobal order.
func schema() soql.Schema {
	var s soql.Schema
	for _, t := range sobjectTypes() {
		s = append(s, t.Object)
	}
	return s
}

// lookupType finds a type by name, ignoring case as the real API does.
func lookupType(name string) (sobjectType, bool) {
	for _, t := range sobjectTypes() {
		if strings.EqualFold(t.Name, name) {
			return t, true
		}
	}
	return sobjectType{}, false
}

// referenceTo names the type a reference field points to.
func referenceTo(f sfdc.Field) (typ, relationship string) {
	switch f.Name {
	case "AccountId":
		return "Account", "Account"
	case "ParentId":
		return "Account", "Parent"
	}
	return "", ""
}
