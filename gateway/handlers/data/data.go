// Package data serves the data discovery routes of the public API (kind
// data), forwarded to a Salesforce-style data API through upstreams/dataapi:
// each route names one action, all served by GET:
//
//	versions   /{version}/data                       the backend's API versions
//	resources  /{version}/data/{apiVersion}          resource names -> paths of a version
//	sobjects   /{version}/sobjects                   the record types (describeGlobal)
//	sobject    /{version}/sobjects/{type}            a type's basics and recent items
//	describe   /{version}/sobjects/{type}/describe   a type's fields
//	query      /{version}/query?q=SOQL               records, key-mapped by their type
//	queryMore  /{version}/query/{locator}            the next batch of a query
//	search     /{version}/search?q=SOSL              records, key-mapped by their type
//
// Records of a query, search or recent items are key-mapped, at every
// depth, with the map of their own attributes.type for the call's version
// (Backend.KeyMap: the describe's field and relationship names, colliding
// derived names shared out by a tie-break, a declared model's names
// winning). A type the backend cannot describe (an AggregateResult) is
// returned unmapped. A search answer always has the shape
// {"searchRecords": [...]}, whatever the API version. Backend addresses
// (attributes.url, nextRecordsUrl, a subquery's included, describe urls,
// the version list and the resource map) become the gateway paths that
// answer them, or are removed (Linker). The writer still drops nulls when
// the version says so.
//
// Errors: a missing or blank q is PARAMETER_INVALID (400). A backend's
// rejection is QUERY_OPERATION_FAILED for query and queryMore, SEARCH_FAILED
// for search and SOBJECT_OPERATION_FAILED for the rest, with the backend's
// 4xx status and its message in the system message; any other failure is
// CALLOUT_FAILED.
package data

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/restgate/gateway/gateway/config"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
)

// Path parameters the actions read.
const (
	ParamAPIVersion = "apiVersion"
	ParamType       = "type"
	ParamLocator    = "locator"
)

// Options tune the handlers. The zero value works.
type Options struct {
	// MaxDepth bounds the nesting of a record. Default 64.
	MaxDepth int
}

// operation is what one action serves: the path parameters its template
// must have, the code of a backend's rejection, and the handler.
type operation struct {
	params   []string
	rejected string
	serve    func(h *handler, r *http.Request, c *call.Call) (call.Result, error)
}

func operations() map[string]operation {
	sobject := envelope.SObjectOperationFailed
	return map[string]operation{
		config.ActionVersions:  {nil, sobject, (*handler).versions},
		config.ActionResources: {[]string{ParamAPIVersion}, sobject, (*handler).resources},
		config.ActionSObjects:  {nil, sobject, (*handler).sobjects},
		config.ActionSObject:   {[]string{ParamType}, sobject, (*handler).sobject},
		config.ActionDescribe:  {[]string{ParamType}, sobject, (*handler).describe},
		config.ActionQuery:     {nil, envelope.QueryOperationFailed, (*handler).query},
		config.ActionQueryMore: {[]string{ParamLocator}, envelope.QueryOperationFailed, (*handler).queryMore},
		config.ActionSearch:    {nil, envelope.SearchFailed, (*handler).search},
	}
}

// New returns the factory of kind data. table supplies the declared models'
// key maps. The factory fails when the action is unknown, the template lacks
// a parameter the action reads, or the upstream has no Backend.
func New(backends router.Resolver[*Backend], table *routes.Table, opts Options) router.Factory {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 64
	}
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		op, ok := operations()[rt.Spec.Action]
		if !ok {
			return nil, fmt.Errorf("action %q is not a data action", rt.Spec.Action)
		}
		if err := rt.CheckParams(op.params); err != nil {
			return nil, err
		}
		b, err := backends.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		h := &handler{backend: b, table: table, maxDepth: opts.MaxDepth,
			links: NewLinker(table, rt.Spec.Upstream, b.APIVersion())}
		return map[string]call.Handler{http.MethodGet: func(r *http.Request, c *call.Call) (call.Result, error) {
			res, err := op.serve(h, r, c)
			if err != nil {
				return call.Result{}, call.Upstream(err, op.rejected)
			}
			return res, nil
		}}, nil
	}
}

type handler struct {
	backend  *Backend
	table    *routes.Table
	maxDepth int
	links    *Linker
}

// plain answers the backend's JSON with its addresses rewritten to gateway
// paths (or removed), names left as they are.
func (h *handler) plain(c *call.Call, body []byte, err error) (call.Result, error) {
	if err != nil {
		return call.Result{}, err
	}
	out, err := mapping.Rewrite(nil, body, mapping.Options{Links: h.links.Links(c.Version), MaxDepth: h.maxDepth, MaxOutput: -1})
	if err != nil {
		return call.Result{}, invalidAnswer("not JSON", err)
	}
	return call.Result{JSON: out, Form: call.ExposedNames}, nil
}

func (h *handler) versions(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.backend.client.Versions(r.Context())
	return h.plain(c, body, err)
}

func (h *handler) resources(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.backend.client.Resources(r.Context(), router.Param(r, ParamAPIVersion))
	if err != nil {
		return call.Result{}, err
	}
	out, err := h.links.Resources(body, c.Version)
	if err != nil {
		return call.Result{}, err
	}
	return call.Result{JSON: out, Form: call.ExposedNames}, nil
}

func (h *handler) sobjects(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.backend.client.SObjects(r.Context())
	return h.plain(c, body, err)
}

// sobject answers a type's basics, its recent items key-mapped like query
// records.
func (h *handler) sobject(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.backend.client.SObject(r.Context(), router.Param(r, ParamType))
	if err != nil {
		return call.Result{}, err
	}
	return h.records(r.Context(), c, body)
}

func (h *handler) describe(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.backend.client.Describe(r.Context(), router.Param(r, ParamType))
	return h.plain(c, body, err)
}

func (h *handler) query(r *http.Request, c *call.Call) (call.Result, error) {
	q, err := statement(r)
	if err != nil {
		return call.Result{}, err
	}
	body, err := h.backend.client.Query(r.Context(), q)
	if err != nil {
		return call.Result{}, err
	}
	return h.records(r.Context(), c, body)
}

func (h *handler) queryMore(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.backend.client.QueryMore(r.Context(), router.Param(r, ParamLocator))
	if err != nil {
		return call.Result{}, err
	}
	return h.records(r.Context(), c, body)
}

func (h *handler) search(r *http.Request, c *call.Call) (call.Result, error) {
	q, err := statement(r)
	if err != nil {
		return call.Result{}, err
	}
	body, err := h.backend.client.Search(r.Context(), q)
	if err != nil {
		return call.Result{}, err
	}
	return h.records(r.Context(), c, searchRecords(body))
}

// searchRecords gives every search answer the shape of API 37.0 and later,
// {"searchRecords": [...]}: up to 36.0 the backend answers a bare array.
func searchRecords(body []byte) []byte {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return body
	}
	out := make([]byte, 0, len(trimmed)+20)
	out = append(out, `{"searchRecords":`...)
	out = append(out, trimmed...)
	return append(out, '}')
}

// statement reads the one q parameter of a query or search.
func statement(r *http.Request) (string, error) {
	qs := r.URL.Query()["q"]
	switch {
	case len(qs) == 0 || strings.TrimSpace(qs[0]) == "":
		return "", envelope.InvalidParameter("q", "required")
	case len(qs) > 1:
		return "", envelope.InvalidParameter("q", "given more than once")
	}
	return qs[0], nil
}
