package proxy

import (
	"net/http"
	"strings"

	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// Contract declares the operations of a proxy route from its
// configuration: the query parameters it passes on (query), the cursor of
// a paged data query when the upstream is a data API (paged reports
// whether a route's upstream is one), and the route's record.
func Contract(paged func(upstream string) bool) contract.Declare {
	return func(rt *routes.Route, method string) contract.Operation {
		op := contract.Operation{ID: operationID(method, rt.Template), Upstream: true, Result: contract.Record,
			Description: "Forwarded to the " + rt.Spec.Upstream + " backend as " + method + "; its answer is the result, " +
				"its members renamed to this version's names."}
		for _, p := range routes.PathParams(rt.Template) {
			op.Path = append(op.Path, contract.Param{Name: p, Required: true, Description: "sent to the backend, escaped"})
		}
		for _, q := range rt.Spec.Query {
			op.Query = append(op.Query, contract.Param{Name: q, Backend: q, Description: "passed on to the backend"})
		}
		switch method {
		case http.MethodGet:
			if paged != nil && paged(rt.Spec.Upstream) {
				op.Paged, op.Result = true, contract.Records
				op.Description = "Forwarded to the " + rt.Spec.Upstream + " backend; answers one batch of its records, " +
					"renamed to this version's names, and page.next, the path of the next batch, while there is one."
				op.Query = append(op.Query, contract.Param{Name: CursorParam, MaxLength: maxCursor,
					Description: "the cursor of the previous answer's page.next"})
			}
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			op.Body = &contract.Body{Required: true, Shape: contract.Input,
				Description: "a record in this version's names, renamed to the backend's before it is sent"}
		}
		return op
	}
}

// operationID is the method + the template's segments ("getContacts",
// "getContactsByContactId").
func operationID(method, template string) string {
	return strings.ToLower(method) + contract.PathName(template)
}
