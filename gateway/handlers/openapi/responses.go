package openapi

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// errorAnswer is the shared response of one error status: its name under
// components.responses, what it means and the headers it carries.
type errorAnswer struct {
	name, description string
	headers           []contract.Header
}

// errorAnswerOf returns the shared response of status code ("404", or
// "4XX": a backend's other rejections). Each status has its own, so that a
// generator gives each its own type (one response shared by explicit
// statuses and a range breaks ogen's).
func errorAnswerOf(code string) errorAnswer {
	switch code {
	case "400":
		return errorAnswer{name: "BadRequest", description: "the request was refused: a parameter, the body or the " +
			"backend's check (PARAMETER_INVALID, JSON_SERIALIZATION_FAILED, or the backend's code)"}
	case "401":
		return errorAnswer{name: "Unauthorized", description: "no valid credentials (AUTHENTICATION_REQUIRED)",
			headers: []contract.Header{contract.WWWAuthenticate()}}
	case "403":
		return errorAnswer{name: "Forbidden", description: "the caller lacks a role the operation needs (ACCESS_DENIED)"}
	case "404":
		return errorAnswer{name: "NotFound", description: "the record, type or user is unknown"}
	case "409":
		return errorAnswer{name: "Conflict", description: "the backend's state refuses the operation (a task another user holds)"}
	case "413":
		return errorAnswer{name: "ContentTooLarge", description: "the URL, the headers or the body is over its limit (REQUEST_TOO_LARGE)"}
	case "415":
		return errorAnswer{name: "UnsupportedMediaType", description: "the body is not of the media type the operation takes"}
	case "429":
		return errorAnswer{name: "TooManyRequests", description: "the caller's rate limit or quota is spent (RATE_LIMITED)",
			headers: append([]contract.Header{contract.RetryAfter()}, contract.RateLimitFields()...)}
	case "500":
		return errorAnswer{name: "InternalServerError", description: "the gateway failed (REST_DISPATCHER_FAILED, SERIALIZATION_FAILED ...)"}
	case "501":
		return errorAnswer{name: "NotImplemented", description: "the backend does not offer the operation"}
	case "502":
		return errorAnswer{name: "BadGateway", description: "the backend failed or answered what it should not (CALLOUT_FAILED ...)"}
	case "503":
		return errorAnswer{name: "ServiceUnavailable", description: "the backend's breaker is open, the org's API allowance " +
			"is reserved for essential calls, or the gateway is out of room for the request (CALLOUT_FAILED ...); call again after Retry-After",
			headers: []contract.Header{contract.RetryAfter()}}
	case "504":
		return errorAnswer{name: "GatewayTimeout", description: "the backend did not answer in time (CALLOUT_FAILED)"}
	case "507":
		return errorAnswer{name: "InsufficientStorage", description: "the upload does not fit the gateway's spool"}
	case "4XX":
		return errorAnswer{name: "BackendRejection", description: "the backend refused the request; its status is kept " +
			"and its reason is in formattedClientMessage"}
	}
	return errorAnswer{name: "Status" + code, description: "an error"}
}

// errorNamed ends the description of an error response with a body.
const errorNamed = "; responseCode names it"

// errorRef refers to the shared response of code, adding it to
// components.responses. With always200 the one response "Error" stands
// for every error, answered with status 200.
func (b *builder) errorRef(code string) *openapi3.ResponseRef {
	a := errorAnswerOf(code)
	if b.settings.Always200 {
		a = errorAnswer{name: "Error", description: "an error, answered with status 200 by this gateway " +
			"(errors.statusMode always200); responseCode names it"}
	}
	if _, ok := b.responses[a.name]; !ok {
		r := openapi3.NewResponse().WithDescription(a.description + errorNamed).
			WithContent(openapi3.NewContentWithJSONSchemaRef(ref("ErrorEnvelope")))
		if b.settings.Always200 {
			r = r.WithDescription(a.description)
		}
		r.Headers = b.headerRefs(a.headers...)
		b.responses[a.name] = &openapi3.ResponseRef{Value: r}
	}
	return &openapi3.ResponseRef{Ref: "#/components/responses/" + a.name}
}

// envelopeOf is the success envelope whose result is result, with the
// page member when paged. The second part lists result as required, so
// that a generated client's result is not optional.
func envelopeOf(result *openapi3.SchemaRef, paged bool) *openapi3.Schema {
	props := openapi3.Schemas{"result": result}
	if paged {
		props["page"] = ref("Page")
	}
	part := openapi3.NewObjectSchema()
	part.Properties, part.Required = props, []string{"result"}
	return &openapi3.Schema{AllOf: openapi3.SchemaRefs{ref("Envelope"), {Value: part}}}
}

// fillResponses fills out with op's answers: the success status with its
// envelope and headers, and every error status the operation may answer,
// each its shared error response. With always200 errors are answered 200,
// so the 200 answer is one or the other (oneOf: a generator tells them
// apart by result and responseCode).
func (b *builder) fillResponses(out *openapi3.Responses, rt *routes.Route, method string, op contract.Operation, rec contract.RecordSchemas) {
	status := op.Status
	if status == 0 {
		status = http.StatusOK
	}
	var success *openapi3.SchemaRef
	if op.Document {
		success = &openapi3.SchemaRef{Value: contract.Described(contract.AnyObject(), "this OpenAPI document, not enveloped")}
	} else {
		result := &openapi3.SchemaRef{Value: &openapi3.Schema{}}
		if op.Result != nil {
			result = b.named(op.Result(rec))
		}
		success = &openapi3.SchemaRef{Value: envelopeOf(result, op.Paged)}
	}
	desc := "success"
	switch {
	case !b.settings.Always200 || status != http.StatusOK:
	case op.Document:
		// any object, so an error envelope too
		desc = "success, or an error envelope (errors are answered 200 by this gateway)"
	default:
		// one or the other: a success has result, an error responseCode
		success = &openapi3.SchemaRef{Value: &openapi3.Schema{OneOf: openapi3.SchemaRefs{success, ref("ErrorEnvelope")}}}
		desc = "success, or an error envelope (errors are answered 200 by this gateway)"
	}
	r := openapi3.NewResponse().WithDescription(desc).WithContent(openapi3.Content{
		contract.JSON: &openapi3.MediaType{Schema: success}})
	r.Headers = b.headerRefs(op.Headers...)
	out.Set(strconv.Itoa(status), &openapi3.ResponseRef{Value: r})
	b.fillErrors(out, status, b.errorStatuses(rt, method, op))
}

// fillErrors adds the error responses of codes to out; with always200 the
// one error response, under 200 unless success is 200 (whose answer then
// holds both).
func (b *builder) fillErrors(out *openapi3.Responses, success int, codes []string) {
	if b.settings.Always200 {
		if success != http.StatusOK {
			out.Set("200", b.errorRef("200"))
		}
		return
	}
	for _, code := range codes {
		out.Set(code, b.errorRef(code))
	}
}

// commonErrors are the statuses every answer of the API listener may have,
// whatever its route: 413 (a URL or headers over their limit), 500, 401
// with authentication and 429 with a rate limit.
func (b *builder) commonErrors() []int {
	codes := []int{http.StatusRequestEntityTooLarge, http.StatusInternalServerError}
	if b.settings.AuthMode != config.AuthNone && b.settings.AuthMode != "" {
		codes = append(codes, http.StatusUnauthorized)
	}
	if b.settings.RateLimited {
		codes = append(codes, http.StatusTooManyRequests)
	}
	return codes
}

// errorStatuses lists the statuses op may answer errors with: those every
// answer may, 400 (a refused parameter), those of the route (403 for
// roles) and of op itself; an operation that calls a backend may also
// answer the backend's rejection with its 4xx status, and 502, 503, 504.
func (b *builder) errorStatuses(rt *routes.Route, method string, op contract.Operation) []string {
	codes := append(b.commonErrors(), http.StatusBadRequest)
	if len(rt.Spec.Roles[method]) > 0 || len(rt.Spec.Roles["*"]) > 0 {
		codes = append(codes, http.StatusForbidden)
	}
	if op.Body != nil && op.Body.Media == contract.Multipart {
		codes = append(codes, http.StatusUnsupportedMediaType)
	}
	codes = append(codes, op.Errors...)
	if op.Upstream {
		codes = append(codes, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout)
	}
	out := statusCodes(codes)
	if op.Upstream {
		out = append(out, "4XX") // the backend's other rejections keep their status
	}
	return out
}

// statusCodes are codes sorted, once each, as response keys.
func statusCodes(codes []int) []string {
	slices.Sort(codes)
	out := make([]string, 0, len(codes)+1)
	for _, c := range slices.Compact(codes) {
		out = append(out, strconv.Itoa(c))
	}
	return out
}
