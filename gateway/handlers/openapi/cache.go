package openapi

import (
	"net/http"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/routes"
)

// cacheAnswers declares what the response cache adds to a cached route's
// GET (docs/guides/caching.md) beside its success answer's headers
// (contract.CacheFields, in headers): the 304 a matching If-None-Match
// gets, with those headers but the stale warning, and, on a route that
// keeps the backend's 404s (cache.notFoundTTL), the 404 with Cache-Status
// and Age, unless errors are answered 200 (always200).
func (b *builder) cacheAnswers(out *openapi3.Responses, rt *routes.Route, headers []contract.Header) {
	var kept, notFound []contract.Header
	for _, h := range headers {
		if h.Name != contract.WarningField {
			kept = append(kept, h)
		}
		if h.Name == contract.CacheStatusField || h.Name == contract.AgeField {
			notFound = append(notFound, h)
		}
	}
	r := openapi3.NewResponse().WithDescription("not modified: the If-None-Match sent names the answer's ETag; no body")
	r.Headers = b.headerRefs(kept...)
	out.Set(strconv.Itoa(http.StatusNotModified), &openapi3.ResponseRef{Value: r})
	if rt.Spec.Cache.NotFoundTTL <= 0 || b.settings.Always200 {
		return
	}
	a := errorAnswerOf(strconv.Itoa(http.StatusNotFound))
	nf := openapi3.NewResponse().WithDescription(a.description + errorNamed +
		"; it may be the backend's 404 the gateway kept (cache.notFoundTTL)").
		WithContent(openapi3.NewContentWithJSONSchemaRef(ref("ErrorEnvelope")))
	nf.Headers = b.headerRefs(notFound...)
	out.Set(strconv.Itoa(http.StatusNotFound), &openapi3.ResponseRef{Value: nf})
}
