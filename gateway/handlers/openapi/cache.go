package openapi

import (
	"maps"
	"net/http"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/routes"
)

// cacheHeaders declares what the response cache adds to the answers of a
// cached route's GET (docs/guides/caching.md): Cache-Status, Age, ETag and
// Cache-Control on the success, Warning on a stale one, the 304 that a
// matching If-None-Match gets, and Cache-Status and Age on the 404 of a
// route that keeps them (cache.notFoundTTL), unless errors are answered
// 200 (always200).
func cacheHeaders(out *openapi3.Responses, rt *routes.Route, method string, always200 bool) {
	if rt.Spec.Cache == nil || method != http.MethodGet {
		return
	}
	str := func(desc string) *openapi3.HeaderRef {
		return &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{Description: desc,
			Schema: openapi3.NewSchemaRef("", openapi3.NewStringSchema())}}}
	}
	headers := openapi3.Headers{
		"Cache-Status":  str("RFC 9211: restgate; hit; ttl=N, or restgate; fwd=miss|stale; fwd-status=N; stored; collapsed; detail=\"...\""),
		"Age":           str("seconds since the backend gave or confirmed the answer"),
		"ETag":          str("a weak validator of the result (not of timeStamp, totalTime or userId); send it in If-None-Match"),
		"Cache-Control": str("private, no-cache; private, max-age=N; or no-store"),
	}
	notModified := openapi3.NewResponse().WithDescription("not modified: the If-None-Match sent names the answer's ETag")
	notModified.Headers = maps.Clone(headers)
	if ok := out.Value(strconv.Itoa(http.StatusOK)); ok != nil && ok.Value != nil {
		ok.Value.Headers = headers
		ok.Value.Headers["Warning"] = str(`111 - "Revalidation Failed": a stale answer, served because the backend failed`)
	}
	out.Set(strconv.Itoa(http.StatusNotModified), &openapi3.ResponseRef{Value: notModified})
	if rt.Spec.Cache.NotFoundTTL > 0 && !always200 {
		notFound := errorResponse(false)
		*notFound.Description += "; the backend's 404 may be one the gateway kept (cache.notFoundTTL)"
		notFound.Headers = openapi3.Headers{"Cache-Status": headers["Cache-Status"], "Age": headers["Age"]}
		out.Set(strconv.Itoa(http.StatusNotFound), &openapi3.ResponseRef{Value: notFound})
	}
}
