package dataapi

import (
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
	"github.com/restgate/gateway/upstreams/sandbox/soql"
)

// sobjectType is one record type the data API serves, backed by a table:
// what queries see of it (name, table, fields, relationships) and what
// describe adds.
type sobjectType struct {
	soql.Object
	Label       string
	LabelPlural string
	KeyPrefix   string
}

// sobjectTypes returns the served record types in describeGlobal order.
// Contact carries what real describes are full of: custom fields whose
// derived names collide with a standard field's (Description__c) or with
// each other (Preferred_Channel__c, PreferredChannel__c), and
// relationships both ways (Account, Owner; Account.Contacts).
func sobjectTypes() []sobjectType {
	return []sobjectType{
		{
			Object: soql.Object{Name: "Account", Table: "accounts", Fields: sfdc.AccountFields(),
				References: []soql.Reference{{Field: "ParentId", Relationship: "Parent", Target: "Account"}},
				Children: []soql.ChildRelation{
					{Relationship: "ChildAccounts", Child: "Account", Field: "ParentId"},
					{Relationship: "Contacts", Child: "Contact", Field: "AccountId"},
				},
			},
			Label: "Account", LabelPlural: "Accounts", KeyPrefix: "001",
		},
		{
			Object: soql.Object{Name: "Contact", Table: "contacts", Fields: sfdc.ContactFields(),
				References: []soql.Reference{
					{Field: "AccountId", Relationship: "Account", Target: "Account"},
					{Field: "OwnerId", Relationship: "Owner", Target: "User"},
				},
			},
			Label: "Contact", LabelPlural: "Contacts", KeyPrefix: "003",
		},
		{
			Object: soql.Object{Name: "User", Table: "users", Fields: sfdc.UserFields(),
				Children: []soql.ChildRelation{{Relationship: "Contacts", Child: "Contact", Field: "OwnerId"}}},
			Label: "User", LabelPlural: "Users", KeyPrefix: "005",
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
