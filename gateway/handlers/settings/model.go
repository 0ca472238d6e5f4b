package settings

import (
	"context"
	"maps"
	"net/http"
	"slices"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
)

// KeyMapSource builds the key map of a record type for a version from the
// data upstream's describe (cached), model's names (nil when the type is
// not declared) winning over derived ones. A type it does not know is an
// *upstreams.Error with status 404.
type KeyMapSource interface {
	KeyMap(ctx context.Context, typ, version string, model *routes.Model) (*mapping.KeyMap, error)
}

// Model returns the factory of /{version}/settings/model/{objectName}.
// GET without a body publishes the type's key map (result and mapKeys,
// internal -> exposed); POST with a JSON body in exposed names answers that
// record in internal names. GET with a body (the seed's form, which
// fetch-based clients cannot send and proxies drop) is answered as POST,
// for the callers that still send it. The map is the one query answers use
// (KeyMapSource): the describe's fields and relationships with their
// derived names, colliding ones shared out by the tie-break, a declared
// model's names winning. Without a source (nil) only declared models
// exist, with their declared maps. maxDepth bounds the body's nesting.
func Model(t *routes.Table, fields KeyMapSource, maxDepth int) router.Factory {
	return func(*routes.Route) (map[string]call.Handler, error) {
		serve := func(bodyRequired bool) call.Handler {
			return func(r *http.Request, c *call.Call) (call.Result, error) {
				return model(r, c, t, fields, maxDepth, bodyRequired)
			}
		}
		return map[string]call.Handler{http.MethodGet: serve(false), http.MethodPost: serve(true)}, nil
	}
}

// model answers one call of the model route: the key map when the call has
// no body (and may have none), else the body mapped to internal names.
func model(r *http.Request, c *call.Call, t *routes.Table, fields KeyMapSource, maxDepth int, bodyRequired bool) (call.Result, error) {
	name := router.Param(r, "objectName")
	body, err := call.ReadBody(r, c)
	if err != nil {
		return call.Result{}, err
	}
	if len(body) > 0 {
		// A body that cannot be mapped is refused before the backend is
		// asked for the type.
		if err := call.CheckJSON(body, maxDepth); err != nil {
			return call.Result{}, err
		}
	} else if bodyRequired {
		return call.Result{}, &envelope.Error{ID: envelope.JSONSerializationFailed,
			Detail: "a JSON body is required: the record to map (GET publishes the key map)"}
	}
	km, err := keyMap(r.Context(), t, fields, name, c.Version)
	if err != nil {
		return call.Result{}, err
	}
	if len(body) == 0 {
		pairs := sortedPairs(km.Pairs())
		return call.Result{JSON: pairs, MapKeys: pairs, Form: call.ExposedNames}, nil
	}
	record, err := mapping.Rewrite(nil, body, mapping.Options{Map: km.Reverse(), RejectUnknown: true, RejectDuplicates: true, MaxDepth: maxDepth, MaxOutput: -1})
	if err != nil {
		return call.Result{}, call.InputError(err)
	}
	return call.Result{JSON: record, Form: call.ExposedNames}, nil
}

func keyMap(ctx context.Context, t *routes.Table, fields KeyMapSource, name, version string) (*mapping.KeyMap, error) {
	m := t.Models[name]
	if m != nil && fields == nil {
		return m.Maps[version], nil
	}
	notFound := &envelope.Error{ID: envelope.SObjectOperationFailed, Status: http.StatusNotFound, Detail: "unknown type " + name}
	if fields == nil || !validTypeName(name) {
		return nil, notFound
	}
	km, err := fields.KeyMap(ctx, name, version, m)
	if err != nil {
		if ue := upstreams.AsError(err); ue != nil && ue.Status == http.StatusNotFound {
			notFound.Cause = err
			return nil, notFound
		}
		return nil, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	return km, nil
}

// sortedPairs renders a key map as a JSON object with sorted keys, so the
// published map reads the same on every call.
func sortedPairs(m map[string]string) []byte {
	buf := []byte{'{'}
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = mapping.AppendString(buf, k)
		buf = append(buf, ':')
		buf = mapping.AppendString(buf, m[k])
	}
	return append(buf, '}')
}

func validTypeName(s string) bool {
	if s == "" || len(s) > 80 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
