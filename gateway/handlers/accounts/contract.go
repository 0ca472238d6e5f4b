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
				Description: "Lists the accounts: without limit and offset the whole list, without page; with either, " +
					"one page of it, with page (its start, size, total and the path of the next page). An answer " +
					"over mapping.maxOutputChars is refused (SERIALIZATION_FAILED): page it.",
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
				Description: "Creates an account from the fields given, in this version's names, and answers its id. " +
					"A field the model does not have is refused before anything is sent.",
				Body: &contract.Body{Required: true, Shape: contract.Input, Description: "the account's fields"},
				Result: contract.Fixed(contract.Named("Created", contract.Closed(map[string]*openapi3.Schema{
					"id": contract.Str("the new record's id")}, "id")))}
		case http.MethodPut:
			return contract.Operation{ID: "updateAccounts", Upstream: true,
				Description: "Updates several accounts at once, each with its id and the fields to change, and " +
					"answers one result per item, in order: a failed item does not stop the others.",
				Body: &contract.Body{Required: true, Shape: bulkInput(opts.MaxBulkItems),
					Description: "the accounts to update, each with its id and the fields to change"},
				Result: contract.Fixed(openapi3.NewArraySchema().WithItems(bulkResult()))}
		case http.MethodDelete:
			return contract.Operation{ID: "deleteAccounts", Upstream: true, Errors: []int{http.StatusNotImplemented},
				Description: "Deletes every account and answers how many were deleted; only for callers with the " +
					"route's role (admin in the shipped configuration).",
				Result: contract.Fixed(contract.Named("Deleted", contract.Closed(map[string]*openapi3.Schema{
					"deleted": contract.Described(contract.Int64().WithMin(0), "the number of records deleted")}, "deleted")))}
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
			op.Description = "Answers one account; an unknown id is 404."
		case http.MethodPut:
			op.ID, op.Result = "updateAccount", contract.Empty
			op.Description = "Changes the fields given and keeps the others; an unknown id is 404. Answers \"\"."
			op.Body = &contract.Body{Required: true, Shape: contract.Input,
				Description: "the fields to change; an id, when given, must be the path's"}
		case http.MethodDelete:
			op.ID, op.Result = "deleteAccount", contract.Empty
			op.Description = "Deletes one account; an unknown id is 404. Answers \"\"."
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
			if withID.Title != "" {
				withID.Title += "Update" // the record with its id required
			}
			item = &withID
		}
		return openapi3.NewArraySchema().WithItems(item).WithMaxItems(int64(maxItems))
	}
}

// bulkResult is one element of the bulk update's answer (itemResult).
func bulkResult() *openapi3.Schema {
	itemErr := contract.Named("ItemError", contract.Closed(map[string]*openapi3.Schema{
		"errorCode": openapi3.NewStringSchema().WithEnum(ItemInvalid, ItemMissingID, ItemInvalidID, ItemDuplicateID,
			ItemNotFound, ItemRejected, ItemCalloutFailed),
		"message": openapi3.NewStringSchema(),
	}, "errorCode", "message"))
	return contract.Named("ItemResult", contract.Closed(map[string]*openapi3.Schema{
		"id":         contract.Str("the id as sent; absent when none was"),
		"statusCode": contract.Described(contract.Int32(), "the item's own HTTP status: 200, or why it failed"),
		"errors":     openapi3.NewArraySchema().WithItems(itemErr),
	}, "statusCode"))
}
