package dataapi

import (
	"net/http"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// objectSummary is one describeGlobal entry, also the objectDescribe of
// GET .../sobjects/{type}.
type objectSummary struct {
	Activateable bool              `json:"activateable"`
	Createable   bool              `json:"createable"`
	Custom       bool              `json:"custom"`
	Deletable    bool              `json:"deletable"`
	KeyPrefix    string            `json:"keyPrefix"`
	Label        string            `json:"label"`
	LabelPlural  string            `json:"labelPlural"`
	Layoutable   bool              `json:"layoutable"`
	Name         string            `json:"name"`
	Queryable    bool              `json:"queryable"`
	Retrieveable bool              `json:"retrieveable"`
	Searchable   bool              `json:"searchable"`
	Updateable   bool              `json:"updateable"`
	URLs         map[string]string `json:"urls"`
}

func summarize(t sobjectType, v string) objectSummary {
	return objectSummary{
		Createable: true, Deletable: true, KeyPrefix: t.KeyPrefix, Label: t.Label,
		LabelPlural: t.LabelPlural, Layoutable: true, Name: t.Name, Queryable: true,
		Retrieveable: true, Searchable: true, Updateable: true, URLs: objectURLs(t, v),
	}
}

func objectURLs(t sobjectType, v string) map[string]string {
	base := "/services/data/" + v + "/sobjects/" + t.Name
	return map[string]string{
		"sobject":        base,
		"describe":       base + "/describe",
		"rowTemplate":    base + "/{ID}",
		"layouts":        base + "/describe/layouts",
		"compactLayouts": base + "/describe/compactLayouts",
	}
}

func (a *api) describeGlobal(w http.ResponseWriter, v string) {
	var objects []objectSummary
	for _, t := range sobjectTypes() {
		objects = append(objects, summarize(t, v))
	}
	sfdc.WriteJSON(w, http.StatusOK, struct {
		Encoding     string          `json:"encoding"`
		MaxBatchSize int             `json:"maxBatchSize"`
		SObjects     []objectSummary `json:"sobjects"`
	}{"UTF-8", 200, objects})
}

// sobject answers the basic information of a type with its most recently
// created records.
func (a *api) sobject(w http.ResponseWriter, r *http.Request, v, typeName string) {
	t, ok := lookupType(typeName)
	if !ok {
		notFound(w)
		return
	}
	id, _ := t.Field("Id")
	name, _ := t.Field("Name")
	fields := []sfdc.Field{id, name}
	recent, err := a.records(r.Context(), v, plainBound(t.Object, fields), t.SelectSQL(fields)+" ORDER BY rowid DESC LIMIT 5")
	if err != nil {
		failQuery(w, err)
		return
	}
	sfdc.WriteJSON(w, http.StatusOK, struct {
		ObjectDescribe objectSummary `json:"objectDescribe"`
		RecentItems    []*record     `json:"recentItems"`
	}{summarize(t, v), recent})
}

// fieldDescribe is one field of a describe, with the properties clients
// of the real API read.
type fieldDescribe struct {
	AutoNumber        bool     `json:"autoNumber"`
	ByteLength        int      `json:"byteLength"`
	Calculated        bool     `json:"calculated"`
	Createable        bool     `json:"createable"`
	Custom            bool     `json:"custom"`
	DefaultedOnCreate bool     `json:"defaultedOnCreate"`
	Digits            int      `json:"digits"`
	Filterable        bool     `json:"filterable"`
	IDLookup          bool     `json:"idLookup"`
	Label             string   `json:"label"`
	Length            int      `json:"length"`
	Name              string   `json:"name"`
	NameField         bool     `json:"nameField"`
	Nillable          bool     `json:"nillable"`
	PicklistValues    []string `json:"picklistValues"`
	Precision         int      `json:"precision"`
	ReferenceTo       []string `json:"referenceTo"`
	RelationshipName  *string  `json:"relationshipName"`
	Scale             int      `json:"scale"`
	SoapType          string   `json:"soapType"`
	Sortable          bool     `json:"sortable"`
	Type              string   `json:"type"`
	Unique            bool     `json:"unique"`
	Updateable        bool     `json:"updateable"`
}

func describeField(t sobjectType, f sfdc.Field) fieldDescribe {
	d := fieldDescribe{
		ByteLength: f.Length * 3, Createable: true, Filterable: true, Label: f.Label,
		Length: f.Length, Name: f.Name, Nillable: true, PicklistValues: []string{},
		ReferenceTo: []string{}, Sortable: true, Type: f.Type, Updateable: true,
		Custom: len(f.Name) > 3 && f.Name[len(f.Name)-3:] == "__c", SoapType: "xsd:string",
	}
	switch f.Type {
	case "id":
		d.Createable, d.Updateable, d.Nillable, d.DefaultedOnCreate, d.IDLookup = false, false, false, true, true
		d.SoapType = "tns:ID"
	case "reference":
		d.SoapType = "tns:ID"
		for _, ref := range t.References {
			if ref.Field == f.Name {
				rel := ref.Relationship
				d.ReferenceTo, d.RelationshipName = []string{ref.Target}, &rel
			}
		}
	case "int":
		d.SoapType, d.Digits, d.ByteLength = "xsd:int", 9, 0
	case "currency":
		d.SoapType, d.Precision, d.Scale, d.ByteLength = "xsd:double", 18, 2, 0
	case "textarea":
		d.Filterable, d.Sortable = false, false
	}
	if f.Name == "Name" {
		d.NameField, d.IDLookup, d.Nillable = true, true, false
		// A contact's Name is compound: it is derived from FirstName and
		// LastName and cannot be written.
		if t.Name == "Contact" {
			d.Createable, d.Updateable = false, false
		}
	}
	return d
}

func (a *api) describe(w http.ResponseWriter, v, name string) {
	t, ok := lookupType(name)
	if !ok {
		notFound(w)
		return
	}
	fields := make([]fieldDescribe, 0, len(t.Fields))
	for _, f := range t.Fields {
		fields = append(fields, describeField(t, f))
	}
	type child struct {
		CascadeDelete    bool   `json:"cascadeDelete"`
		ChildSObject     string `json:"childSObject"`
		Field            string `json:"field"`
		RelationshipName string `json:"relationshipName"`
		RestrictedDelete bool   `json:"restrictedDelete"`
	}
	children := []child{}
	for _, c := range t.Object.Children {
		children = append(children, child{ChildSObject: c.Child, Field: c.Field, RelationshipName: c.Relationship})
	}
	s := summarize(t, v)
	sfdc.WriteJSON(w, http.StatusOK, struct {
		ChildRelationships []child           `json:"childRelationships"`
		Createable         bool              `json:"createable"`
		Custom             bool              `json:"custom"`
		Deletable          bool              `json:"deletable"`
		Fields             []fieldDescribe   `json:"fields"`
		KeyPrefix          string            `json:"keyPrefix"`
		Label              string            `json:"label"`
		LabelPlural        string            `json:"labelPlural"`
		Name               string            `json:"name"`
		Queryable          bool              `json:"queryable"`
		Searchable         bool              `json:"searchable"`
		Updateable         bool              `json:"updateable"`
		URLs               map[string]string `json:"urls"`
	}{children, s.Createable, s.Custom, s.Deletable, fields, s.KeyPrefix, s.Label, s.LabelPlural,
		s.Name, s.Queryable, s.Searchable, s.Updateable, s.URLs})
}
