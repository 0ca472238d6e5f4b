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
	path := contract.Obj(map[string]*openapi3.Schema{
		"operation": contract.Str("HTTPGET, HTTPPOST ..."),
		"uri":       contract.Str("the path template"),
		"summary":   openapi3.NewStringSchema(),
		"produces":  openapi3.NewObjectSchema().WithAdditionalProperties(openapi3.NewStringSchema()),
	}, "operation", "uri")
	rec := contract.Obj(map[string]*openapi3.Schema{"path": path}, "path")
	return contract.Operation{ID: "listEndpoints", Result: contract.Fixed(openapi3.NewArraySchema().WithItems(rec))}
}

// ModelContract declares GET of kind model: the type's key map, or, with
// a body, that record in internal names.
func ModelContract(rt *routes.Route, _ string) contract.Operation {
	var path []contract.Param
	for _, p := range routes.PathParams(rt.Template) {
		path = append(path, contract.Param{Name: p, Required: true, MaxLength: 255, Description: "the record type"})
	}
	keyMap := openapi3.NewObjectSchema().WithAdditionalProperties(openapi3.NewStringSchema())
	keyMap.Description = "internal name -> exposed name"
	return contract.Operation{ID: "getModel", Path: path, Upstream: true, Errors: []int{http.StatusNotFound},
		Description: "The envelope also carries mapKeys, the same map.",
		Result:      contract.Fixed(openapi3.NewObjectSchema().WithAnyAdditionalProperties()),
		Body: &contract.Body{Shape: contract.Fixed(contract.AnyObject()),
			Description: "optional: a record in exposed names, answered in internal names"}}
}
