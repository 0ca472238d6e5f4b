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
		op := contract.Operation{ID: operationID(method, rt.Template), Upstream: true, Result: contract.Record}
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
				op.Query = append(op.Query, contract.Param{Name: CursorParam, MaxLength: maxCursor,
					Description: "the cursor of the previous answer's page.next"})
			}
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			op.Body = &contract.Body{Required: true, Shape: contract.Input}
		}
		return op
	}
}

// operationID is get + the template's literal segments ("getContacts",
// "getContactsByContactId").
func operationID(method, template string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for _, seg := range strings.Split(template, "/") {
		switch {
		case seg == "" || seg == "{version}":
		case strings.HasPrefix(seg, "{"):
			b.WriteString("By")
			b.WriteString(title(strings.Trim(seg, "{}")))
		default:
			b.WriteString(title(seg))
		}
	}
	return b.String()
}

func title(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '-' || r == '_' || r == '.' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}
