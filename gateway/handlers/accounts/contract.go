package accounts

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// idPattern is an account id: 15 or 18 letters and digits
// (accounts.ValidID).
const idPattern = "^[A-Za-z0-9]{15}([A-Za-z0-9]{3})?$"

// CollectionContract declares the operations of kind accounts with opts'
// bounds (the ones Collection applies).
func CollectionContract(opts Options) contract.Declare {
	opts = opts.withDefaults()
	return func(_ *routes.Route, method string) contract.Operation {
		switch method {
		case http.MethodGet:
			return contract.Operation{ID: "listAccounts", Upstream: true, Paged: true, Result: contract.Records,
				Description: "Without limit and offset the whole list, without page; with either, one page with page.",
				Query: []contract.Param{
					{Name: "limit", Type: contract.Integer, Min: 0, Max: int64(opts.MaxLimit), AllowEmpty: true,
						Backend:     "limit (paging: backend); applied by the gateway (paging: adapter)",
						Description: "at most this many accounts; alone, from offset 0"},
					{Name: "offset", Type: contract.Integer, Min: 0, Max: maxOffset, AllowEmpty: true,
						Backend:     "offset (paging: backend); applied by the gateway (paging: adapter)",
						Description: "skip this many accounts; alone, every account after them"},
				}}
		case http.MethodPost:
			return contract.Operation{ID: "createAccount", Upstream: true, Status: http.StatusCreated,
				Body:   &contract.Body{Required: true, Shape: contract.Input, Description: "the account's fields"},
				Result: contract.Fixed(contract.Closed(map[string]*openapi3.Schema{"id": contract.Str("the new account's id")}, "id"))}
		case http.MethodPut:
			return contract.Operation{ID: "updateAccounts", Upstream: true,
				Body: &contract.Body{Required: true, Shape: bulkInput(opts.MaxBulkItems),
					Description: "the accounts to update, each with its id and the fields to change"},
				Result: contract.Fixed(openapi3.NewArraySchema().WithItems(bulkResult()))}
		case http.MethodDelete:
			return contract.Operation{ID: "deleteAccounts", Upstream: true, Errors: []int{http.StatusNotImplemented},
				Result: contract.Fixed(contract.Closed(map[string]*openapi3.Schema{
					"deleted": openapi3.NewIntegerSchema().WithMin(0)}, "deleted"))}
		}
		return contract.Operation{}
	}
}

// ItemContract declares the operations of kind account.
func ItemContract(opts Options) contract.Declare {
	return func(rt *routes.Route, method string) contract.Operation {
		var path []contract.Param
		for _, p := range routes.PathParams(rt.Template) {
			path = append(path, contract.Param{Name: p, Pattern: idPattern, Required: true,
				Description: "the account's id: 15 or 18 letters and digits"})
		}
		op := contract.Operation{Path: path, Upstream: true, Errors: []int{http.StatusNotFound}}
		switch method {
		case http.MethodGet:
			op.ID, op.Result = "getAccount", contract.Record
		case http.MethodPut:
			op.ID, op.Result = "updateAccount", contract.Empty
			op.Body = &contract.Body{Required: true, Shape: contract.Input,
				Description: "the fields to change; an id, when given, must be the path's"}
		case http.MethodDelete:
			op.ID, op.Result = "deleteAccount", contract.Empty
		}
		return op
	}
}

// bulkInput is the bulk update's body: an array of records, each with its
// id.
func bulkInput(maxItems int) contract.Shape {
	return func(r contract.RecordSchemas) *openapi3.Schema {
		item := contract.Input(r)
		if r.ID != "" {
			withID := *item
			withID.Required = []string{r.ID}
			item = &withID
		}
		return openapi3.NewArraySchema().WithItems(item).WithMaxItems(int64(maxItems))
	}
}

// bulkResult is one element of the bulk update's answer (itemResult).
func bulkResult() *openapi3.Schema {
	itemErr := contract.Closed(map[string]*openapi3.Schema{
		"errorCode": openapi3.NewStringSchema().WithEnum(ItemInvalid, ItemMissingID, ItemInvalidID, ItemDuplicateID,
			ItemNotFound, ItemRejected, ItemCalloutFailed),
		"message": openapi3.NewStringSchema(),
	}, "errorCode", "message")
	return contract.Closed(map[string]*openapi3.Schema{
		"id":         contract.Str("the id as sent; absent when none was"),
		"statusCode": openapi3.NewIntegerSchema(),
		"errors":     openapi3.NewArraySchema().WithItems(itemErr),
	}, "statusCode")
}
