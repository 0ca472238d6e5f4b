package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// describeAPIVersion is the data API version the cache scenario's gateways
// speak, and describePrefix the path of a describe before its type.
const (
	describeAPIVersion = "v62.0"
	describePrefix     = "/services/data/" + describeAPIVersion + "/sobjects/"
)

// describeBackend is the cache scenario's backend: a Salesforce-style
// data API answering GET /services/data (the versions) and a describe of
// any type, as the real org does: after latency, with the org's headers
// (no-store, private, Expires in 1970, a BrowserId cookie), Last-Modified,
// and 304 to an If-Modified-Since at or after it (Get Object Metadata
// Changes). It records when each describe of each type arrived, 304s
// included (the org counts them against its allowance too), and answers
// them, as unix nanoseconds, on GET /loadtest/calls.
type describeBackend struct {
	latency  time.Duration
	fields   int
	modified time.Time
	bodies   sync.Map // type -> []byte

	mu    sync.Mutex
	calls map[string][]int64
}

func newDescribeBackend(latency time.Duration, fields int) *describeBackend {
	return &describeBackend{latency: latency, fields: fields, modified: time.Now().Add(-time.Hour).Truncate(time.Second),
		calls: map[string][]int64{}}
}

// callsPath is where the harness reads the recorded calls.
const callsPath = "/loadtest/calls"

func (b *describeBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == callsPath:
		b.mu.Lock()
		body, _ := json.Marshal(b.calls)
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return
	case r.URL.Path == "/services/data" || r.URL.Path == "/services/data/":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"label":"Winter '25","url":"/services/data/%s","version":"%s"}]`, describeAPIVersion, describeAPIVersion[1:])
		return
	}
	typ, prefixed := strings.CutPrefix(r.URL.Path, describePrefix)
	typ, suffixed := strings.CutSuffix(typ, "/describe")
	if !prefixed || !suffixed || typ == "" || strings.Contains(typ, "/") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`[{"errorCode":"NOT_FOUND","message":"The requested resource does not exist"}]`))
		return
	}
	b.mu.Lock()
	b.calls[typ] = append(b.calls[typ], time.Now().UnixNano())
	b.mu.Unlock()
	time.Sleep(b.latency)
	h := w.Header()
	h.Set("Cache-Control", "no-cache,must-revalidate,max-age=0,no-store,private")
	h.Set("Expires", "Thu, 01 Jan 1970 00:00:00 GMT")
	h.Set("Set-Cookie", "BrowserId=loadtest; Path=/; Domain=.salesforce.com; Max-Age=31536000")
	h.Set("Last-Modified", b.modified.UTC().Format(http.TimeFormat))
	if since, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !b.modified.After(since) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json;charset=UTF-8")
	_, _ = w.Write(b.body(typ))
}

// body is the describe of typ, made once.
func (b *describeBackend) body(typ string) []byte {
	if v, ok := b.bodies.Load(typ); ok {
		return v.([]byte)
	}
	v, _ := b.bodies.LoadOrStore(typ, describeBody(typ, b.fields))
	return v.([]byte)
}

// describeBody is a describe of typ with fields fields and as many child
// relationships as half of them, every property the real API gives each
// (REST API v62.0): an Account of a customised org, with its standard,
// custom, reference and picklist fields, is 120 fields and about 200 KB.
func describeBody(typ string, fields int) []byte {
	base := describePrefix + typ
	out := map[string]any{
		"actionOverrides": []any{}, "activateable": false, "associateEntityType": nil, "associateParentEntity": nil,
		"compactLayoutable": true, "createable": true, "custom": false, "customSetting": false, "deepCloneable": false,
		"defaultImplementation": nil, "deletable": true, "deprecatedAndHidden": false, "extendedBy": nil,
		"extendsInterfaces": nil, "feedEnabled": true, "hasSubtypes": false, "implementedBy": nil,
		"implementsInterfaces": nil, "isInterface": false, "isSubtype": false, "keyPrefix": "001", "label": typ,
		"labelPlural": typ + "s", "layoutable": true, "listviewable": nil, "lookupLayoutable": nil, "mergeable": true,
		"mruEnabled": true, "name": typ, "namedLayoutInfos": []any{}, "networkScopeFieldName": nil, "queryable": true,
		"replicateable": true, "retrieveable": true, "searchLayoutable": true, "searchable": true,
		"sobjectDescribeOption": "FULL", "triggerable": true, "undeletable": true, "updateable": true,
		"supportedScopes": []any{
			map[string]string{"label": "All " + typ + "s", "name": "everything"},
			map[string]string{"label": "My " + typ + "s", "name": "mine"},
			map[string]string{"label": "My team's " + typ + "s", "name": "team"},
		},
		"recordTypeInfos": []any{map[string]any{"active": true, "available": true, "defaultRecordTypeMapping": true,
			"developerName": "Master", "master": true, "name": "Master", "recordTypeId": "012000000000000AAA",
			"urls": map[string]string{"layout": base + "/describe/layouts/012000000000000AAA"}}},
		"urls": map[string]string{"compactLayouts": base + "/describe/compactLayouts", "rowTemplate": base + "/{ID}",
			"approvalLayouts": base + "/describe/approvalLayouts", "uiDetailTemplate": "https://example.my.salesforce.com/{ID}",
			"uiEditTemplate": "https://example.my.salesforce.com/{ID}/e", "listviews": base + "/listviews",
			"describe": base + "/describe", "uiNewRecord": "https://example.my.salesforce.com/001/e",
			"quickActions": base + "/quickActions", "layouts": base + "/describe/layouts", "sobject": base},
	}
	list := make([]any, 0, fields)
	for i := range fields {
		list = append(list, describeField(typ, i))
	}
	out["fields"] = list
	children := make([]any, 0, fields/2)
	for i := range fields / 2 {
		child := fmt.Sprintf("Child%02d__c", i)
		children = append(children, map[string]any{"cascadeDelete": i%3 == 0, "childSObject": child, "deprecatedAndHidden": false,
			"field": typ + "__c", "junctionIdListNames": []any{}, "junctionReferenceTo": []any{},
			"relationshipName": fmt.Sprintf("Children%02d__r", i), "restrictedDelete": false})
	}
	out["childRelationships"] = children
	body, _ := json.Marshal(out)
	return body
}

// describeField is the i-th field of a describe: every eighth a picklist,
// every fifth a reference, the rest text.
func describeField(typ string, i int) map[string]any {
	name := fmt.Sprintf("Field%03d__c", i)
	f := map[string]any{
		"aggregatable": true, "aiPredictionField": false, "autoNumber": false, "byteLength": 765, "calculated": false,
		"calculatedFormula": nil, "cascadeDelete": false, "caseSensitive": false, "compoundFieldName": nil,
		"controllerName": nil, "createable": true, "custom": true, "defaultValue": nil, "defaultValueFormula": nil,
		"defaultedOnCreate": false, "dependentPicklist": false, "deprecatedAndHidden": false, "digits": 0,
		"displayLocationInDecimal": false, "encrypted": false, "externalId": false, "extraTypeInfo": nil, "filterable": true,
		"filteredLookupInfo": nil, "formulaTreatNullNumberAsZero": false, "groupable": true, "highScaleNumber": false,
		"htmlFormatted": false, "idLookup": false, "inlineHelpText": "What the " + typ + " records in field " + name,
		"label": fmt.Sprintf("Field %d", i), "length": 255, "mask": nil, "maskType": nil, "name": name,
		"nameField": false, "namePointing": false, "nillable": true, "permissionable": true, "picklistValues": []any{},
		"polymorphicForeignKey": false, "precision": 0, "queryByDistance": false, "referenceTargetField": nil,
		"referenceTo": []any{}, "relationshipName": nil, "relationshipOrder": nil, "restrictedDelete": false,
		"restrictedPicklist": false, "scale": 0, "searchPrefilterable": false, "soapType": "xsd:string", "sortable": true,
		"type": "string", "unique": false, "updateable": true, "writeRequiresMasterRead": false,
	}
	switch {
	case i%8 == 0:
		values := make([]any, 0, 12)
		for v := range 12 {
			values = append(values, map[string]any{"active": true, "defaultValue": v == 0, "label": fmt.Sprintf("Value %d", v),
				"validFor": nil, "value": fmt.Sprintf("VALUE_%d", v)})
		}
		f["type"], f["picklistValues"], f["restrictedPicklist"] = "picklist", values, true
	case i%5 == 0:
		f["type"], f["soapType"], f["length"], f["byteLength"] = "reference", "tns:ID", 18, 18
		f["referenceTo"], f["relationshipName"] = []any{"Account"}, fmt.Sprintf("Field%03d__r", i)
	}
	return f
}
