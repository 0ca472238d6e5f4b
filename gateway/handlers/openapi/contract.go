package openapi

import (
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// Contract declares GET of kind openapi: this document, not enveloped.
func Contract(*routes.Route, string) contract.Operation {
	return contract.Operation{ID: "getOpenAPIDocument", Document: true}
}
