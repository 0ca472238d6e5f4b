// Package accounts serves the account routes of the public API: the
// collection /{version}/accounts (list, create, bulk update, delete all) and
// the item /{version}/accounts/{accountId} (read, partial update, delete),
// forwarded to the account controller through upstreams/accounts.
//
// Records travel in the backend's internal field names: input bodies arrive
// reverse-mapped by call.ReadInput and answers are records the writer maps
// with the route version's key map, null handling and field selection. The
// answers that are not records ({"id"} of a create, the bulk update's
// per-item results, {"deleted"} of a delete-all) have a fixed shape that no
// version's key map or field list changes.
package accounts

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams/accounts"
)

// Options tune the account handlers. The zero value works: every zero field
// takes its documented default.
type Options struct {
	// MaxDepth bounds the nesting of request bodies. Default 64.
	MaxDepth int
	// MaxLimit is the largest limit a list accepts; above it the list is a
	// PARAMETER_INVALID 400 (the answer would not fit the output limit
	// anyway). Default 2000.
	MaxLimit int
	// MaxBulkItems is the most accounts one bulk update takes; a longer
	// array is JSON_SERIALIZATION_FAILED 400 before anything is sent.
	// Default 200.
	MaxBulkItems int
	// BulkConcurrency is how many updates of one bulk update run at once.
	// Default 8.
	BulkConcurrency int
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 64
	}
	if o.MaxLimit <= 0 {
		o.MaxLimit = 2000
	}
	if o.MaxBulkItems <= 0 {
		o.MaxBulkItems = 200
	}
	if o.BulkConcurrency <= 0 {
		o.BulkConcurrency = 8
	}
	return o
}

// Collection returns the factory of kind accounts, on /{version}/accounts:
//
//	GET    list; limit and offset page it (either alone: offset 0, or no limit) -> with the page member
//	POST   create from a body in exposed names -> 201, result {"id": "..."}
//	PUT    bulk update of an array of accounts with ids -> 200, per-item results
//	DELETE delete every account -> result {"deleted": N}
//
// Who may DELETE is the route's roles configuration, enforced by the router.
func Collection(clients router.Resolver[*accounts.Client], opts Options) router.Factory {
	opts = opts.withDefaults()
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		client, err := clients.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		fixed := newFixedShapes(rt)
		c := &collection{client: client, opts: opts, fixed: fixed}
		return map[string]call.Handler{
			http.MethodGet:    c.list,
			http.MethodPost:   c.create,
			http.MethodPut:    c.bulkUpdate,
			http.MethodDelete: c.deleteAll,
		}, nil
	}
}

type collection struct {
	client *accounts.Client
	opts   Options
	fixed  fixedShapes
}

func (h *collection) list(r *http.Request, _ *call.Call) (call.Result, error) {
	var page *accounts.Page
	var q url.Values
	if r.URL.RawQuery != "" { // Query makes a map even of nothing
		var err error
		if q, err = call.ParseQuery(r); err != nil {
			return call.Result{}, err
		}
		if page, err = parsePage(q, h.opts.MaxLimit); err != nil {
			return call.Result{}, err
		}
	}
	if page != nil {
		page.Uncounted = true // the writer counts the page as it rewrites it
	}
	body, at, err := h.client.List(r.Context(), page)
	if err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	res := call.Result{JSON: body.JSON, Owner: body, Page: pageOf(r, q, page, at), SizeParam: "limit"}
	if page != nil && at.Size < 0 {
		res.Page = nil
		res.Paging = func(n int) (*envelope.Page, error) {
			at, err := accounts.Place(page, n)
			if err != nil {
				return nil, call.Upstream(err, envelope.SObjectOperationFailed)
			}
			return pageOf(r, q, page, at), nil
		}
	}
	return res, nil
}

func (h *collection) create(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := call.ReadInput(r, c, h.opts.MaxDepth)
	if err != nil {
		return call.Result{}, err
	}
	if !isObject(body) {
		return call.Result{}, notAccepted("the body must be a JSON object of account fields")
	}
	id, err := h.client.Create(r.Context(), body)
	if err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	out := mapping.AppendString(append(make([]byte, 0, len(id)+10), `{"id":`...), id)
	return h.fixed.result(c, http.StatusCreated, append(out, '}')), nil
}

func (h *collection) deleteAll(r *http.Request, c *call.Call) (call.Result, error) {
	n, err := h.client.DeleteAll(r.Context())
	if errors.Is(err, accounts.ErrUnidentified) {
		// Refused before anything was deleted: the backend cannot name its
		// accounts, which no retry changes.
		return call.Result{}, &envelope.Error{ID: envelope.SObjectOperationFailed, Status: http.StatusNotImplemented, Cause: err,
			Detail: "the account backend lists accounts without their id, so they cannot be deleted one by one; nothing was deleted"}
	}
	if err != nil {
		err = call.Upstream(err, envelope.SObjectOperationFailed)
		var ee *envelope.Error
		if errors.As(err, &ee) {
			// The accounts deleted before the failure stay deleted; the
			// caller needs to know how far it got.
			ee.Detail = fmt.Sprintf("%d accounts were deleted before the failure", n)
		}
		return call.Result{}, err
	}
	out := strconv.AppendInt([]byte(`{"deleted":`), int64(n), 10)
	return h.fixed.result(c, http.StatusOK, append(out, '}')), nil
}

// isObject reports whether a (compact, valid) JSON document is an object.
func isObject(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// notAccepted is the 400 for a body that is valid JSON in the wrong shape.
func notAccepted(detail string) error {
	return &envelope.Error{ID: envelope.JSONSerializationFailed, Detail: detail}
}
