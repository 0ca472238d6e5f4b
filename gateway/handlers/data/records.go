package data

import (
	"context"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// records rewrites a query, search or sobject answer in one pass: every
// record, at any depth (a parent's record under its relationship name,
// a subquery's records), is key-mapped by its own attributes.type for the
// call's version (when the version maps keys), and every backend address
// becomes a gateway path or is removed (a subquery's nextRecordsUrl
// included). A type the backend cannot describe (an AggregateResult) is
// left unmapped.
func (h *handler) records(ctx context.Context, c *call.Call, body []byte) (call.Result, error) {
	o := c.Options
	if o == nil {
		o = &routes.VersionOptions{}
	}
	opts := mapping.Options{Links: h.links.Links(c.Version), MaxDepth: h.maxDepth, MaxOutput: -1}
	form := call.ExposedNames
	var types *TypeMaps
	if o.MapKeys {
		types = h.backend.TypeMaps(ctx, h.table, c.Version)
		opts.Types = types.Lookup
		form = call.MappedByHandler
	}
	out, err := mapping.Rewrite(nil, body, opts)
	if types != nil && types.Err() != nil {
		return call.Result{}, types.Err()
	}
	if err != nil {
		if upstreams.AsError(err) != nil {
			return call.Result{}, err
		}
		return call.Result{}, invalidAnswer("not JSON", err)
	}
	return call.Result{JSON: out, Form: form}, nil
}

// TypeMaps looks up, for one answer, the key map of each record type it
// holds (Backend.KeyMap), once per type; mapping.Options.Types is its
// Lookup. Not safe for concurrent use: it serves one rewrite.
type TypeMaps struct {
	b       *Backend
	ctx     context.Context
	table   *routes.Table
	version string
	seen    map[string]*mapping.KeyMap
	err     error
}

// TypeMaps returns the lookup of the key maps of version, the declared
// models of table winning over derived names.
func (b *Backend) TypeMaps(ctx context.Context, table *routes.Table, version string) *TypeMaps {
	return &TypeMaps{b: b, ctx: ctx, table: table, version: version, seen: make(map[string]*mapping.KeyMap)}
}

// Lookup is the key map of type typ: nil for a type the backend does not
// know. A failure to get it leaves the type unmapped and is kept for Err.
func (t *TypeMaps) Lookup(typ []byte) *mapping.KeyMap {
	if km, ok := t.seen[string(typ)]; ok {
		return km
	}
	name := string(typ)
	var model *routes.Model
	if t.table != nil {
		model = t.table.Models[name]
	}
	km, err := t.b.KeyMap(t.ctx, name, t.version, model)
	if err != nil && !isNotFound(err) && t.err == nil {
		t.err = err
	}
	t.seen[name] = km
	return km
}

// Err is the first failure of a lookup: the answer cannot be mapped.
func (t *TypeMaps) Err() error { return t.err }

func invalidAnswer(what string, err error) error {
	return &upstreams.Error{Upstream: dataapi.Upstream, Kind: upstreams.KindInvalid,
		Message: "the answer's records cannot be read: " + what, Err: err}
}
