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
	records := contract.Fixed(contract.Named("QueryResult", contract.Obj(map[string]*openapi3.Schema{
		"totalSize":      contract.Described(contract.Int64().WithMin(0), "the number of records the query matches"),
		"done":           contract.Described(openapi3.NewBoolSchema(), "false when a further batch follows (nextRecordsUrl)"),
		"nextRecordsUrl": contract.Str("the gateway path of the next batch: /{version}/query/{locator}"),
		"records":        openapi3.NewArraySchema().WithItems(record()),
	}, "records")))
	op := contract.Operation{Upstream: true, Result: contract.Fixed(contract.AnyObject())}
	switch rt.Spec.Action {
	case config.ActionVersions:
		op.ID = "listDataVersions"
		op.Description = "Lists the versions of the data API the backend offers, each with the gateway path of its resources."
		op.Result = contract.Fixed(openapi3.NewArraySchema().WithItems(contract.Named("DataVersion", contract.Obj(map[string]*openapi3.Schema{
			"version": openapi3.NewStringSchema(), "label": openapi3.NewStringSchema(),
			"url": contract.Str("the gateway path of the version's resources"),
		}))))
	case config.ActionResources:
		op.ID = "listDataResources"
		op.Description = "Lists the resources of one data API version, by name, each with its gateway path."
		op.Path = []contract.Param{{Name: ParamAPIVersion, Required: true, MaxLength: 16,
			Description: "a data API version (62.0 or v62.0)"}}
	case config.ActionSObjects:
		op.ID = "listRecordTypes"
		op.Description = "Lists the record types of the data API (the backend's global describe), their links rewritten to gateway paths."
	case config.ActionSObject:
		op.ID, op.Path, op.Errors = "getRecordType", typ, []int{http.StatusNotFound}
		op.Description = "Shows a record type's basics and its recently viewed records; an unknown type is 404."
	case config.ActionDescribe:
		op.ID, op.Path, op.Errors = "describeRecordType", typ, []int{http.StatusNotFound}
		op.Description = "Describes a record type: its fields, their types and relationships; an unknown type is 404."
	case config.ActionQuery:
		op.ID, op.Query, op.Result = "query", statement("a SOQL statement"), records
		op.Description = "Runs a SOQL query and answers its first batch of records, each key-mapped by its own type; " +
			"nextRecordsUrl, when present, is the gateway path of the next batch. A statement the backend refuses is " +
			"400 with its reason."
	case config.ActionQueryMore:
		op.ID, op.Result = "queryMore", records
		op.Description = "Answers the next batch of a query, from the locator of the previous batch's nextRecordsUrl."
		op.Path = []contract.Param{{Name: ParamLocator, Required: true, MaxLength: 8 << 10,
			Description: "the locator of a nextRecordsUrl"}}
	case config.ActionSearch:
		op.ID, op.Query = "search", statement("a SOSL statement")
		op.Description = "Runs a SOSL search and answers the records found, each key-mapped by its own type."
		op.Result = contract.Fixed(contract.Named("SearchResult", contract.Obj(map[string]*openapi3.Schema{
			"searchRecords": openapi3.NewArraySchema().WithItems(record()),
		}, "searchRecords")))
	}
	return op
}

// record is a data record: its attributes and its fields, key-mapped by
// its own type.
func record() *openapi3.Schema {
	return contract.Named("DataRecord", contract.Described(contract.Obj(map[string]*openapi3.Schema{
		"attributes": contract.Named("RecordAttributes", contract.Obj(map[string]*openapi3.Schema{
			"type": contract.Str("the record's type (Account ...)"),
			"url":  contract.Str("the gateway path of the record's type"),
		})),
	}), "A record of the data API: its attributes, then its fields in the names its type's key map exposes."))
}
