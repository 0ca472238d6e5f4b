// Package routes builds the route table from the configuration: every
// (path template, method) the gateway serves, with each version's key map
// and serializer settings resolved. The router, the endpoint listing, the
// OpenAPI document and `gateway check` all read this one table, so none of
// them can drift from what is served.
package routes

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/mapping"
)

// VersionPrefix starts every route template.
const VersionPrefix = "/{version}/"

// Table is the built route table. It is immutable; a reload builds a new one.
type Table struct {
	// Versions are the served versions, in config order.
	Versions []string
	// Routes in config order.
	Routes []*Route
	// Models are the declared models with their per-version key maps.
	Models map[string]*Model
}

// Route is one configured path template.
type Route struct {
	// Template is the path template, such as /{version}/accounts/{accountId}.
	Template string
	// Index is the route's position in config.yaml (for key paths).
	Index int
	// Spec is the route as configured, defaults filled in.
	Spec config.Route
	// Versions holds the options of each version the route serves.
	Versions map[string]*VersionOptions
}

// VersionOptions is what a route does for one version.
type VersionOptions struct {
	// MapKeys is the mapKeysFlag: whether KeyMap is applied.
	MapKeys bool
	// DropNulls removes null members (the config's and the envelope's
	// serializeNulls, the seed's name for it).
	DropNulls bool
	// KeyMap maps internal to exposed names; nil when the route has no model
	// and no produces map.
	KeyMap *mapping.KeyMap
	// Select keeps only these internal fields of each record; nil keeps all.
	Select *mapping.FieldSet
	// Model is the route's model; nil when it has none (or a produces map).
	Model *Model
}

// Produces is the internal -> exposed map listed for the route, or nil.
func (o *VersionOptions) Produces() map[string]string {
	if o == nil || o.KeyMap == nil || !o.MapKeys {
		return nil
	}
	pairs := o.KeyMap.Pairs()
	if o.Select != nil {
		for k := range pairs {
			if !o.Select.Has(k) {
				delete(pairs, k)
			}
		}
	}
	return pairs
}

// CheckParams fails when the route's template lacks one of params, the
// path parameters its action reads, naming the first missing one.
func (r *Route) CheckParams(params []string) error {
	have := PathParams(r.Template)
	for _, p := range params {
		if !slices.Contains(have, p) {
			return fmt.Errorf("action %s reads the path parameter {%s}, which %s lacks", r.Spec.Action, p, r.Template)
		}
	}
	return nil
}

// Serves reports whether the route serves version v.
func (r *Route) Serves(v string) bool { _, ok := r.Versions[v]; return ok }

// Model is a declared record type.
type Model struct {
	Name   string
	Fields []string
	// Types maps a field to its JSON type (config.FieldTypes); a field
	// not listed is a string.
	Types map[string]string
	// Maps holds the key map of each served version.
	Maps map[string]*mapping.KeyMap
	// TieBreaks lists, per version ("v2: ..."), the derived names several
	// fields claimed and how mapping.DeriveKeyMapWith shared them out;
	// `gateway check` prints them and the gateway logs them at start.
	TieBreaks []string
}

// Entry is one (route, method) pair: one row of the endpoint listing.
type Entry struct {
	Route  *Route
	Method string
}

// Operation is the seed's method token: HTTPGET, HTTPPOST ...
func (e Entry) Operation() string { return "HTTP" + e.Method }

// Entries lists every (route, method) in config order.
func (t *Table) Entries() []Entry {
	var out []Entry
	for _, r := range t.Routes {
		for _, m := range r.Spec.Methods {
			out = append(out, Entry{Route: r, Method: m})
		}
	}
	return out
}

// Row is one line of the route table as `gateway check` prints it and the
// console shows it.
type Row struct {
	Method   string `json:"method"`
	Template string `json:"route"`
	// Kind is the route kind, with its action after a colon when it has
	// one (data:query).
	Kind string `json:"kind"`
	// Upstream is the route's upstream, "" when it calls none.
	Upstream string `json:"upstream"`
	// Versions are the versions it serves, in the table's order.
	Versions []string `json:"versions"`
}

// Rows lists every (route, method) in config order as table rows.
func (t *Table) Rows() []Row {
	var out []Row
	for _, e := range t.Entries() {
		versions := []string{}
		for _, v := range t.Versions {
			if e.Route.Serves(v) {
				versions = append(versions, v)
			}
		}
		kind := e.Route.Spec.Kind
		if e.Route.Spec.Action != "" {
			kind += ":" + e.Route.Spec.Action
		}
		out = append(out, Row{Method: e.Method, Template: e.Route.Template, Kind: kind, Upstream: e.Route.Spec.Upstream,
			Versions: versions})
	}
	return out
}

// PathParams returns the names of the {param} segments of a template,
// version excluded.
func PathParams(template string) []string {
	var out []string
	for _, seg := range strings.Split(template, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			name, _, _ := strings.Cut(seg[1:len(seg)-1], ":")
			if name != "version" {
				out = append(out, name)
			}
		}
	}
	return out
}

// sortedKeys returns the keys of m, sorted, for deterministic reports.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func errorf(path, format string, args ...any) error {
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}
