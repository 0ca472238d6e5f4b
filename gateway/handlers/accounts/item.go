package accounts

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams/accounts"
)

// idField is the internal name of an account's id.
const idField = "Id"

// Item returns the factory of kind account, on a template with one
// parameter after the version, such as /{version}/accounts/{accountId}:
//
//	GET    the account
//	PUT    update the fields given, keep the others -> result ""
//	DELETE delete it -> result ""
//
// The id must be 15 or 18 letters and digits, else PARAMETER_INVALID 400
// naming the parameter, and nothing is sent. An account the backend does
// not have is SOBJECT_OPERATION_FAILED 404. POST is not served: the router
// answers it URL_INVALID 405.
func Item(clients router.Resolver[*accounts.Client], opts Options) router.Factory {
	opts = opts.withDefaults()
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		client, err := clients.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		params := routes.PathParams(rt.Template)
		if len(params) != 1 {
			return nil, fmt.Errorf("path: %s must have exactly one parameter, the account id", rt.Template)
		}
		h := &item{client: client, opts: opts, param: params[0]}
		return map[string]call.Handler{
			http.MethodGet:    h.get,
			http.MethodPut:    h.update,
			http.MethodDelete: h.remove,
		}, nil
	}
}

type item struct {
	client *accounts.Client
	opts   Options
	param  string
}

func (h *item) id(r *http.Request) (string, error) {
	id := router.Param(r, h.param)
	if !accounts.ValidID(id) {
		return "", envelope.InvalidParameter(h.param, "must be 15 or 18 letters and digits")
	}
	return id, nil
}

func (h *item) get(r *http.Request, _ *call.Call) (call.Result, error) {
	id, err := h.id(r)
	if err != nil {
		return call.Result{}, err
	}
	rec, err := h.client.Get(r.Context(), id)
	if err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	return call.Result{JSON: rec.JSON, Owner: rec}, nil
}

// update sends only the fields of the body; the result is "" because the
// backend answers a status, not the record, and reading it back would be a
// second call whose answer another writer may already have changed. An id
// in the body must be the path's.
func (h *item) update(r *http.Request, c *call.Call) (call.Result, error) {
	id, err := h.id(r)
	if err != nil {
		return call.Result{}, err
	}
	body, err := call.ReadInput(r, c, h.opts.MaxDepth)
	if err != nil {
		return call.Result{}, err
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		return call.Result{}, notAccepted("the body must be a JSON object of account fields")
	}
	if raw, ok := obj[idField]; ok {
		var given string
		if json.Unmarshal(raw, &given) != nil || given != "" && !sameID(given, id) {
			return call.Result{}, envelope.InvalidParameter(exposedID(c), "must be the id of the path when given")
		}
		delete(obj, idField)
		if body, err = json.Marshal(obj); err != nil {
			return call.Result{}, err
		}
	}
	if err := h.client.Update(r.Context(), id, body); err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	return call.Result{}, nil
}

func (h *item) remove(r *http.Request, _ *call.Call) (call.Result, error) {
	id, err := h.id(r)
	if err != nil {
		return call.Result{}, err
	}
	if err := h.client.Delete(r.Context(), id); err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	return call.Result{}, nil
}

// sameID compares two ids, either of which may be the 15-character form of
// the other.
func sameID(a, b string) bool {
	if !accounts.ValidID(a) || !accounts.ValidID(b) {
		return false
	}
	if len(a) == len(b) {
		return a == b
	}
	return a[:15] == b[:15]
}

// exposedID is the name the client uses for the id field in this version.
func exposedID(c *call.Call) string {
	if o := c.Options; o != nil && o.MapKeys && o.KeyMap != nil {
		if name, ok := o.KeyMap.Exposed(idField); ok {
			return name
		}
	}
	return idField
}
