package settings

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// EndpointsContract declares GET of kind endpoints: one record per (route,
// method) of the version.
func EndpointsContract(*routes.Route, string) contract.Operation {
	path := contract.Named("EndpointPath", contract.Obj(map[string]*openapi3.Schema{
		"operation": contract.Str("HTTPGET, HTTPPOST ..."),
		"uri":       contract.Str("the path template"),
		"summary":   openapi3.NewStringSchema(),
		"produces": contract.Described(openapi3.NewObjectSchema().WithAdditionalProperties(openapi3.NewStringSchema()),
			"the route's key map in this version, internal name -> exposed name"),
	}, "operation", "uri"))
	rec := contract.Named("Endpoint", contract.Obj(map[string]*openapi3.Schema{"path": path}, "path"))
	return contract.Operation{ID: "listEndpoints", Result: contract.Fixed(openapi3.NewArraySchema().WithItems(rec)),
		Description: "One record per (route, method) this version serves, in the configuration's order: the seed's " +
			"method token (HTTPGET), the path template, the route's summary and its key map. HEAD and OPTIONS, " +
			"which every path answers, are not listed. The envelope has no mapKeysFlag and serializeNulls."}
}

// ModelContract declares the operations of kind model: GET publishes the
// type's key map; POST maps a record in exposed names to internal names.
// GET with a body, the seed's form of POST, is still answered but not
// declared: a client generated from the document would send it, and
// fetch-based clients cannot.
func ModelContract(rt *routes.Route, method string) contract.Operation {
	var path []contract.Param
	for _, p := range routes.PathParams(rt.Template) {
		path = append(path, contract.Param{Name: p, Required: true, MaxLength: 255, Description: "the record type (Account, Contact ...)"})
	}
	op := contract.Operation{Path: path, Upstream: true, Errors: []int{http.StatusNotFound}}
	if method == http.MethodPost {
		op.ID = "mapModelRecord"
		op.Description = "Answers the record of the body, in this version's exposed names, with the type's internal " +
			"names, as the backend would receive it: the same mapping as every request body. A field the type " +
			"does not have, or a field given twice, is refused (JSON_SERIALIZATION_FAILED, 400); so is a " +
			"request without a body. The same as the seed's GET with a body."
		op.Body = &contract.Body{Required: true, Shape: contract.Fixed(contract.AnyObject()),
			Description: "a record in this version's exposed names"}
		op.Result = contract.Fixed(contract.Described(contract.AnyObject(), "the record in internal names"))
		return op
	}
	keyMap := contract.Named("KeyMap", openapi3.NewObjectSchema().WithAdditionalProperties(openapi3.NewStringSchema()))
	keyMap.Description = "internal name -> exposed name"
	op.ID = "getModel"
	op.Result = contract.Fixed(keyMap)
	op.Description = "Publishes the type's key map in this version, internal name -> exposed name, in result " +
		"and again in the envelope's mapKeys: the fields of the type's describe (the data backend's, cached) " +
		"and of its configured model, a configured name winning. An unknown type is 404. " +
		"Deprecated form: a GET with a JSON body (the seed's) is still answered like POST, for existing " +
		"callers; fetch-based clients cannot send it and proxies drop it, so it is not declared here: send " +
		"the record with POST instead."
	return op
}
