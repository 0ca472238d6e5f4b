package openapi

import (
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// Contract declares GET of kind openapi: this document, not enveloped.
func Contract(*routes.Route, string) contract.Operation {
	return contract.Operation{ID: "getOpenAPIDocument", Document: true,
		Description: "Answers this document: the OpenAPI 3.1 description of this version, rendered from the routes " +
			"the gateway serves. Not enveloped, so that OpenAPI tools read it as it is; its errors are."}
}
