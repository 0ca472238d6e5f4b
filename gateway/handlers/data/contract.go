package data

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// maxStatement bounds q: the data API refuses a SOQL statement over
// 100,000 characters.
const maxStatement = 100_000

// Contract declares the operation of each data action.
func Contract(rt *routes.Route, _ string) contract.Operation {
	typ := []contract.Param{{Name: ParamType, Required: true, MaxLength: 255, Description: "the record type (Account, Contact ...)"}}
	statement := func(what string) []contract.Param {
		return []contract.Param{{Name: "q", Required: true, MaxLength: maxStatement, Backend: "q", Description: what}}
	}
	records := contract.Fixed(contract.Obj(map[string]*openapi3.Schema{
		"totalSize":      openapi3.NewIntegerSchema(),
		"done":           openapi3.NewBoolSchema(),
		"nextRecordsUrl": contract.Str("the gateway path of the next batch: /{version}/query/{locator}"),
		"records":        openapi3.NewArraySchema().WithItems(record()),
	}, "records"))
	op := contract.Operation{Upstream: true, Result: contract.Fixed(contract.AnyObject())}
	switch rt.Spec.Action {
	case config.ActionVersions:
		op.ID = "listDataVersions"
		op.Result = contract.Fixed(openapi3.NewArraySchema().WithItems(contract.Obj(map[string]*openapi3.Schema{
			"version": openapi3.NewStringSchema(), "label": openapi3.NewStringSchema(),
			"url": contract.Str("the gateway path of the version's resources"),
		})))
	case config.ActionResources:
		op.ID = "listDataResources"
		op.Path = []contract.Param{{Name: ParamAPIVersion, Required: true, MaxLength: 16,
			Description: "a data API version (62.0 or v62.0)"}}
	case config.ActionSObjects:
		op.ID = "listRecordTypes"
	case config.ActionSObject:
		op.ID, op.Path, op.Errors = "getRecordType", typ, []int{http.StatusNotFound}
	case config.ActionDescribe:
		op.ID, op.Path, op.Errors = "describeRecordType", typ, []int{http.StatusNotFound}
	case config.ActionQuery:
		op.ID, op.Query, op.Result = "query", statement("a SOQL statement"), records
	case config.ActionQueryMore:
		op.ID, op.Result = "queryMore", records
		op.Path = []contract.Param{{Name: ParamLocator, Required: true, MaxLength: 8 << 10,
			Description: "the locator of a nextRecordsUrl"}}
	case config.ActionSearch:
		op.ID, op.Query = "search", statement("a SOSL statement")
		op.Result = contract.Fixed(contract.Obj(map[string]*openapi3.Schema{
			"searchRecords": openapi3.NewArraySchema().WithItems(record()),
		}, "searchRecords"))
	}
	return op
}

// record is a data record: its attributes and its fields, key-mapped by
// its own type.
func record() *openapi3.Schema {
	return contract.Obj(map[string]*openapi3.Schema{
		"attributes": contract.Obj(map[string]*openapi3.Schema{
			"type": openapi3.NewStringSchema(),
			"url":  contract.Str("the gateway path of the record's type"),
		}),
	})
}
