package openapi

import (
	"net/http"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/contract"
)

// notModified declares the 304 a cached route's GET answers to an
// If-None-Match naming its ETag (docs/guides/caching.md), with the success
// answer's headers but the stale warning.
func (b *builder) notModified(out *openapi3.Responses, headers []contract.Header) {
	r := openapi3.NewResponse().WithDescription("not modified: the If-None-Match sent names the answer's ETag; no body")
	var kept []contract.Header
	for _, h := range headers {
		if h.Name != contract.WarningField {
			kept = append(kept, h)
		}
	}
	r.Headers = b.headerRefs(kept...)
	out.Set(strconv.Itoa(http.StatusNotModified), &openapi3.ResponseRef{Value: r})
}
