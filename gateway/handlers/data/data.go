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
// Records of a query or search are key-mapped one by one with the map of
// their attributes.type for the call's version: the declared model's map
// when the configuration has one, else the map derived from the type's
// describe (cached by the Backend). A type the backend cannot describe (an
// AggregateResult) is returned unmapped. A query's nextRecordsUrl becomes the
// gateway's own /{version}/query/{locator}. Every other answer is returned
// as the backend gave it (the writer still drops nulls when the version says
// so).
//
// Errors: a missing or blank q is PARAMETER_INVALID (400). A backend's
// rejection is QUERY_OPERATION_FAILED for query and queryMore, SEARCH_FAILED
// for search and SOBJECT_OPERATION_FAILED for the rest, with the backend's
// 4xx status and its message in the system message; any other failure is
// CALLOUT_FAILED.
package data

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/restgate/gateway/gateway/config"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// Path parameters the actions read.
const (
	ParamAPIVersion = "apiVersion"
	ParamType       = "type"
	ParamLocator    = "locator"
)

// Upstream options a Backend reads (config upstreams.<name>.options).
const (
	// OptionAPIVersion is the data API version spoken ("v35.0").
	OptionAPIVersion = "apiVersion"
	// DefaultAPIVersion is used when the option is not set.
	DefaultAPIVersion = "v35.0"
)

// Backend is one data upstream as the handlers use it: the adapter client
// and the cache of describes. It is also the settings.FieldSource of
// /settings/model, so the model listing and the query mapping share one
// describe per type. Safe for concurrent use.
type Backend struct {
	client *dataapi.Client
	fields *dataapi.FieldCache
}

// NewBackend returns the Backend of the data API at baseURL sending through
// doer, with the upstream's options (apiVersion, default v35.0). Describes
// are cached for fieldTTL (0: the cache's default of five minutes).
func NewBackend(baseURL string, options map[string]string, doer upstreams.Doer, fieldTTL time.Duration) (*Backend, error) {
	version := options[OptionAPIVersion]
	if version == "" {
		version = DefaultAPIVersion
	}
	c, err := dataapi.New(baseURL, version, doer)
	if err != nil {
		return nil, err
	}
	return &Backend{client: c, fields: dataapi.NewFieldCache(c, fieldTTL)}, nil
}

// Fields returns the field names of type typ from its describe, cached: one
// upstream call however many requests ask at once. An unknown type is the
// backend's *upstreams.Error with status 404.
func (b *Backend) Fields(ctx context.Context, typ string) ([]string, error) {
	return b.fields.Fields(ctx, typ)
}

// Backends returns a resolver that calls build once per upstream name and
// hands out that Backend (or that error) from then on, so that every route
// of an upstream shares one describe cache. New wants such a resolver.
func Backends(build router.Resolver[*Backend]) router.Resolver[*Backend] {
	type built struct {
		b   *Backend
		err error
	}
	var mu sync.Mutex
	seen := make(map[string]built)
	return func(upstream string) (*Backend, error) {
		mu.Lock()
		defer mu.Unlock()
		if r, ok := seen[upstream]; ok {
			return r.b, r.err
		}
		b, err := build(upstream)
		seen[upstream] = built{b, err}
		return b, err
	}
}

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
		h := &handler{backend: b, table: table, maxDepth: opts.MaxDepth}
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
}

// raw answers the backend's JSON as it is.
func raw(body []byte, err error) (call.Result, error) {
	if err != nil {
		return call.Result{}, err
	}
	return call.Result{JSON: body, Form: call.ExposedNames}, nil
}

func (h *handler) versions(r *http.Request, _ *call.Call) (call.Result, error) {
	return raw(h.backend.client.Versions(r.Context()))
}

func (h *handler) resources(r *http.Request, _ *call.Call) (call.Result, error) {
	return raw(h.backend.client.Resources(r.Context(), router.Param(r, ParamAPIVersion)))
}

func (h *handler) sobjects(r *http.Request, _ *call.Call) (call.Result, error) {
	return raw(h.backend.client.SObjects(r.Context()))
}

func (h *handler) sobject(r *http.Request, _ *call.Call) (call.Result, error) {
	return raw(h.backend.client.SObject(r.Context(), router.Param(r, ParamType)))
}

func (h *handler) describe(r *http.Request, _ *call.Call) (call.Result, error) {
	return raw(h.backend.client.Describe(r.Context(), router.Param(r, ParamType)))
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
	return h.records(r.Context(), c, body, "records")
}

func (h *handler) queryMore(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := h.backend.client.QueryMore(r.Context(), router.Param(r, ParamLocator))
	if err != nil {
		return call.Result{}, err
	}
	return h.records(r.Context(), c, body, "records")
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
	return h.records(r.Context(), c, body, "searchRecords")
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

// records key-maps the records of a query or search answer for the call's
// version and points nextRecordsUrl at the gateway.
func (h *handler) records(ctx context.Context, c *call.Call, body []byte, member string) (call.Result, error) {
	o := c.Options
	if o == nil {
		o = &routes.VersionOptions{}
	}
	opts := recordOptions{
		member:  member,
		rewrite: mapping.Options{DropNulls: o.DropNulls, MaxDepth: h.maxDepth, MaxOutput: -1},
		keyMap:  func(string) (*mapping.KeyMap, error) { return nil, nil },
		next: func(u string) (string, error) {
			loc, ok := dataapi.Locator(u)
			if !ok {
				return "", &upstreams.Error{Upstream: dataapi.Upstream, Kind: upstreams.KindInvalid,
					Message: "nextRecordsUrl is not a query locator", Err: errBadLocator}
			}
			return "/" + c.Version + "/query/" + loc, nil
		},
	}
	form := call.ExposedNames
	if o.MapKeys {
		opts.keyMap = h.keyMaps(ctx, c.Version)
		form = call.MappedByHandler
	}
	out, err := rewriteRecords(body, opts)
	if err != nil {
		return call.Result{}, err
	}
	return call.Result{JSON: out, Form: form}, nil
}

var errBadLocator = errors.New("unexpected nextRecordsUrl")
