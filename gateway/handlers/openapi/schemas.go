package openapi

import (
	"sort"

	"github.com/restgate/gateway/gateway/routes"
)

// obj is a JSON object of the document; encoding/json writes its keys
// sorted, so a document renders byte for byte the same every time.
type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

// commonSchemas are the envelope, the error envelope and its responseCode,
// the same for every route and version (DESIGN.md sections 3 and 4).
func commonSchemas() obj {
	str := obj{"type": "string"}
	meta := obj{
		"timeStamp":      obj{"type": "string", "format": "date-time", "description": "ISO 8601 UTC with milliseconds"},
		"totalTime":      obj{"type": "number", "description": "milliseconds spent in the gateway for this request"},
		"userId":         str,
		"mapKeysFlag":    obj{"type": "boolean", "description": "whether the version's key map was applied"},
		"serializeNulls": obj{"type": "boolean", "description": "true: null members were removed"},
	}
	envelope := obj{"result": obj{"description": `the result; "" when the operation produces nothing`}, "page": ref("Page")}
	errEnvelope := obj{"responseCode": ref("ResponseCode")}
	for k, v := range meta {
		envelope[k] = v
		errEnvelope[k] = v
	}
	return obj{
		"Envelope": obj{"type": "object", "properties": envelope, "required": []string{"result", "timeStamp", "totalTime", "userId"},
			"description": "Every successful answer."},
		"ErrorEnvelope": obj{"type": "object", "properties": errEnvelope, "required": []string{"responseCode", "timeStamp", "totalTime", "userId"},
			"description": "Every error answer."},
		"Page": obj{"type": "object", "required": []string{"start", "size"},
			"description": "Where a list result sits in the whole list (docs/concepts/paging.md); only on lists.",
			"properties": obj{
				"start": obj{"type": "integer", "description": "position of the result's first item in the whole list, from 0"},
				"size":  obj{"type": "integer", "description": "number of items in the result"},
				"total": obj{"type": "integer", "description": "number of items in the whole list; absent when the backend does not say"},
				"next":  obj{"type": "string", "description": "gateway path and query of the next page; absent on the last page"},
			}},
		"ResponseCode": obj{"type": "object", "required": []string{"id", "code", "clientTemplate", "formattedClientMessage"},
			"properties": obj{
				"id":                     obj{"type": "string", "examples": []string{"URL_INVALID"}},
				"code":                   obj{"type": "integer", "examples": []int{989}},
				"clientTemplate":         str,
				"systemTemplate":         obj{"type": "string", "description": "only when the gateway exposes system messages"},
				"formattedClientMessage": str,
				"formattedSystemMessage": obj{"type": "string", "description": "only when the gateway exposes system messages"},
			}},
	}
}

// recordSchema is a record in the names a client sees for o: exposed names
// when the key map applies, internal names otherwise, limited to the
// version's field selection. nil when the route declares no fields.
func recordSchema(o *routes.VersionOptions) obj {
	if o == nil || o.KeyMap == nil {
		return nil
	}
	var names []string
	if o.MapKeys {
		for _, exposed := range o.Produces() {
			names = append(names, exposed)
		}
	} else {
		for _, f := range o.KeyMap.Fields() {
			if o.Select == nil || o.Select.Has(f) {
				names = append(names, f)
			}
		}
	}
	sort.Strings(names)
	props := obj{}
	for _, n := range names {
		props[n] = obj{}
	}
	return obj{"type": "object", "properties": props}
}
