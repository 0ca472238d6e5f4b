package accounts

import (
	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/routes"
)

// fixedShapes holds, per version, the route's options without a field
// selection. Answers of a fixed shape ({"id"}, {"deleted"}, the bulk
// results) are not account records: a version's field list (v1 keeps Id
// and Name) must not strip their members, and their keys are already the
// public ones. Built once per route; read-only afterwards.
type fixedShapes map[string]*routes.VersionOptions

func newFixedShapes(rt *routes.Route) fixedShapes {
	out := make(fixedShapes, len(rt.Versions))
	for v, o := range rt.Versions {
		plain := *o
		plain.Select = nil
		out[v] = &plain
	}
	return out
}

// result returns json as an answer of a fixed shape. It points the call at
// the version's options without a selection; mapKeysFlag and
// serializeNulls of the envelope stay those of the version.
func (f fixedShapes) result(c *call.Call, status int, json []byte) call.Result {
	if o, ok := f[c.Version]; ok {
		c.Options = o
	}
	return call.Result{Status: status, JSON: json, Form: call.ExposedNames}
}
