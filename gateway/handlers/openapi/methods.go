package openapi

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// head is the HEAD operation the router serves beside get: the GET's
// handler, its status and headers, no body. It takes what GET takes and
// answers each of GET's statuses, without content.
func (b *builder) head(get *openapi3.Operation) *openapi3.Operation {
	out := &openapi3.Operation{Tags: get.Tags, Summary: "Headers of: " + get.Summary,
		Description: "The answer of GET " + get.OperationID + " without its body: the same status and headers, " +
			"Content-Length included, from the same handler (so the backend is called as for GET). " +
			"Served with every GET.",
		OperationID: b.operationID("head"+capitalise(get.OperationID), "", ""),
		Parameters:  get.Parameters, Security: get.Security, Responses: openapi3.NewResponses()}
	for code, r := range get.Responses.Map() {
		v := r.Value
		if r.Ref != "" {
			v = b.responses[strings.TrimPrefix(r.Ref, "#/components/responses/")].Value
		}
		desc := "no body (HEAD)"
		if v.Description != nil {
			desc = strings.TrimSuffix(*v.Description, errorNamed) + "; no body (HEAD)"
		}
		out.Responses.Set(code, &openapi3.ResponseRef{Value: &openapi3.Response{Description: &desc, Headers: v.Headers}})
	}
	return out
}

// options is the OPTIONS operation of a path (rt is a route of it): 204
// with Allow, or a CORS preflight's answer when the route has a policy.
func (b *builder) options(rt *routes.Route, item *openapi3.PathItem) *openapi3.Operation {
	var params openapi3.Parameters
	var tags []string
	for _, op := range []*openapi3.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete, item.Head} {
		if op == nil {
			continue
		}
		tags = op.Tags
		for _, p := range op.Parameters {
			if p.Value.In == openapi3.ParameterInPath {
				params = append(params, p)
			}
		}
		break
	}
	ok := openapi3.NewResponse().WithDescription("the methods the path serves, in Allow; or, for a CORS preflight " +
		"the route's policy allows, the Access-Control-* headers")
	ok.Headers = b.headerRefs(append([]contract.Header{contract.Allow()}, contract.AccessControl()...)...)
	out := &openapi3.Operation{Tags: tags, Summary: "Methods of " + rt.Template,
		Description: "Answers 204 with Allow, the methods the path serves (HEAD with GET, and OPTIONS). A CORS " +
			"preflight (OPTIONS with Origin and Access-Control-Request-Method) of a route with a CORS policy is " +
			"answered 204 with the Access-Control-* headers, before authentication: browsers send it without " +
			"credentials.",
		OperationID: b.operationID("options"+contract.PathName(rt.Template), "", ""),
		Parameters:  params, Security: b.security(true), Responses: openapi3.NewResponses()}
	out.Responses.Set("204", &openapi3.ResponseRef{Value: ok})
	b.fillErrors(out.Responses, http.StatusNoContent, statusCodes(b.commonErrors()))
	return out
}

// capitalise upper-cases s's first letter.
func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
