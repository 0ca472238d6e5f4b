package sandbox

import "strings"

// dataType is one record type the data API serves, backed by a table.
type dataType struct {
	Name        string
	Label       string
	LabelPlural string
	KeyPrefix   string
	Table       string
	Fields      []Field
	// Children are the relationships other types hold to this one.
	Children []dataChild
}

// dataChild is one child relationship of a describe.
type dataChild struct {
	ChildSObject     string
	Field            string
	RelationshipName string
}

// dataTypes returns the served record types in describeGlobal order.
func dataTypes() []dataType {
	return []dataType{
		{
			Name: "Account", Label: "Account", LabelPlural: "Accounts", KeyPrefix: "001",
			Table: "accounts", Fields: AccountFields(),
			Children: []dataChild{
				{ChildSObject: "Account", Field: "ParentId", RelationshipName: "ChildAccounts"},
				{ChildSObject: "Contact", Field: "AccountId", RelationshipName: "Contacts"},
			},
		},
		{
			Name: "Contact", Label: "Contact", LabelPlural: "Contacts", KeyPrefix: "003",
			Table: "contacts", Fields: ContactFields(),
		},
	}
}

// lookupDataType finds a type by name, ignoring case as the real API does.
func lookupDataType(name string) (dataType, bool) {
	for _, t := range dataTypes() {
		if strings.EqualFold(t.Name, name) {
			return t, true
		}
	}
	return dataType{}, false
}

// field finds a field of t by name, ignoring case.
func (t dataType) field(name string) (Field, bool) {
	for _, f := range t.Fields {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return Field{}, false
}

// referenceTo names the type a reference field points to.
func referenceTo(f Field) (typ, relationship string) {
	switch f.Name {
	case "AccountId":
		return "Account", "Account"
	case "ParentId":
		return "Account", "Parent"
	}
	return "", ""
}
