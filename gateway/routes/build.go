package routes

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/accounts"
	"github.com/restgate/gateway/upstreams/workflow"
)

// kindNeeds says what each route kind requires of its configuration.
type kindNeeds struct {
	upstream bool
	actions  []string
}

func kinds() map[string]kindNeeds {
	return map[string]kindNeeds{
		config.KindEndpoints: {},
		config.KindModel:     {},
		config.KindOpenAPI:   {},
		config.KindAccounts:  {upstream: true},
		config.KindAccount:   {upstream: true},
		config.KindWorkflow:  {upstream: true, actions: config.KindActions()[config.KindWorkflow]},
		config.KindData:      {upstream: true, actions: config.KindActions()[config.KindData]},
		config.KindFiles:     {upstream: true},
		config.KindMessages:  {upstream: true},
		config.KindProxy:     {upstream: true},
	}
}

var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// Build resolves cfg's models and routes into a Table, reporting every
// problem with its key path: unknown kinds, upstreams or models, duplicate
// (path, method) pairs, versions that are not served, fields the model does
// not have, and key maps that collide or cannot be reversed.
func Build(cfg *config.Config) (*Table, error) {
	var errs []error
	t := &Table{Versions: cfg.Versions, Models: make(map[string]*Model)}
	for _, name := range sortedKeys(cfg.Models) {
		m, err := buildModel(name, cfg.Models[name], cfg.Versions)
		errs = append(errs, err...)
		t.Models[name] = m
	}
	errs = append(errs, upstreamOptions(cfg)...)
	seen := make(map[string]string)
	for i, rc := range cfg.Routes {
		path := fmt.Sprintf("routes[%d]", i)
		r, rerrs := buildRoute(path, i, rc, cfg, t)
		errs = append(errs, rerrs...)
		for _, m := range rc.Methods {
			key := m + " " + Shape(rc.Path)
			if prev, dup := seen[key]; dup {
				errs = append(errs, errorf(path, "%s %s is already served by %s", m, rc.Path, prev))
			}
			seen[key] = path
		}
		t.Routes = append(t.Routes, r)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// upstreamOptions checks the options of the upstreams whose contract a
// route kind fixes: an upstream named by an accounts route takes the
// account adapter's options, one named by a workflow route the workflow
// adapter's, each problem reported under upstreams.<name>.options.
func upstreamOptions(cfg *config.Config) []error {
	checked := make(map[string]bool)
	var errs []error
	for _, rc := range cfg.Routes {
		var problems []*upstreams.FieldError
		s, ok := cfg.Upstreams[rc.Upstream]
		if !ok || checked[rc.Upstream] {
			continue
		}
		switch rc.Kind {
		case config.KindAccounts, config.KindAccount:
			_, problems = accounts.ParseOptions(s.Options)
		case config.KindWorkflow:
			_, problems = workflow.ParseOptions(s.Options)
		default:
			continue
		}
		checked[rc.Upstream] = true
		for _, p := range problems {
			errs = append(errs, errorf("upstreams."+rc.Upstream+".options."+p.Path, "%s", p.Problem))
		}
	}
	return errs
}

func buildModel(name string, mc config.Model, versions []string) (*Model, []error) {
	path := "models." + name
	var errs []error
	if len(mc.Fields) == 0 {
		errs = append(errs, errorf(path+".fields", "a model needs at least one field"))
	}
	m := &Model{Name: name, Fields: mc.Fields, Types: mc.Types, Maps: make(map[string]*mapping.KeyMap)}
	for _, f := range sortedKeys(mc.Types) {
		if !slices.Contains(mc.Fields, f) {
			errs = append(errs, errorf(path+".types."+f, "not a field of the model"))
		}
		if !slices.Contains(config.FieldTypes(), mc.Types[f]) {
			errs = append(errs, errorf(path+".types."+f, "must be one of %s, not %q", strings.Join(config.FieldTypes(), ", "), mc.Types[f]))
		}
	}
	for _, v := range sortedKeys(mc.Versions) {
		if !slices.Contains(versions, v) {
			errs = append(errs, errorf(path+".versions."+v, "version is not served"))
		}
		for internal := range mc.Versions[v].MapKeys {
			if !slices.Contains(mc.Fields, internal) {
				errs = append(errs, errorf(path+".versions."+v+".mapKeys."+internal, "not a field of the model"))
			}
		}
	}
	for _, v := range versions {
		km, breaks, err := mapping.DeriveKeyMapWith(mc.Fields, mc.Versions[v].MapKeys)
		if err != nil {
			errs = append(errs, errorf(path, "key map of %s: %v", v, err))
			continue
		}
		m.Maps[v] = km
		for _, tb := range breaks {
			m.TieBreaks = append(m.TieBreaks, v+": "+tb.String())
		}
	}
	return m, errs
}

func buildRoute(path string, index int, rc config.Route, cfg *config.Config, t *Table) (*Route, []error) {
	var errs []error
	bad := func(key, format string, args ...any) { errs = append(errs, errorf(path+key, format, args...)) }
	if !strings.HasPrefix(rc.Path, VersionPrefix) {
		bad(".path", "must start with %s", VersionPrefix)
	} else if err := checkTemplate(rc.Path); err != nil {
		bad(".path", "%v", err)
	}
	needs, known := kinds()[rc.Kind]
	if !known {
		bad(".kind", "unknown kind %q%s", rc.Kind, choices(rc.Kind, "kinds", sortedKeys(kinds())))
	}
	if needs.upstream {
		if rc.Upstream == "" {
			bad(".upstream", "required for kind %s", rc.Kind)
		} else if _, ok := cfg.Upstreams[rc.Upstream]; !ok {
			bad(".upstream", "no upstream named %q%s", rc.Upstream, choices(rc.Upstream, "upstreams", sortedKeys(cfg.Upstreams)))
		}
	}
	if len(needs.actions) > 0 && !slices.Contains(needs.actions, rc.Action) {
		bad(".action", "must be one of %s for kind %s%s", strings.Join(needs.actions, ", "), rc.Kind, config.DidYouMean(rc.Action, needs.actions))
	} else if len(needs.actions) == 0 && rc.Action != "" {
		bad(".action", "kind %s takes no action", rc.Kind)
	}
	if rc.Kind == config.KindProxy && rc.UpstreamPath == "" {
		bad(".upstreamPath", "required for kind proxy")
	}
	for _, p := range upstreamParams(rc.UpstreamPath) {
		if p == "apiVersion" {
			// The upstream's configured version, not a path parameter.
			if _, ok := cfg.Upstreams[rc.Upstream].Options["apiVersion"]; !ok && rc.Upstream != "" {
				bad(".upstreamPath", "{apiVersion} needs upstreams.%s.options.apiVersion", rc.Upstream)
			}
			continue
		}
		if !slices.Contains(PathParams(rc.Path), p) {
			bad(".upstreamPath", "{%s} is not a parameter of %s", p, rc.Path)
		}
	}
	if rc.BodyTimeout < 0 {
		bad(".bodyTimeout", "must not be negative")
	}
	if rc.MaxAnswerBytes < 0 {
		bad(".maxAnswerBytes", "must not be negative")
	}
	switch {
	case rc.Kind != config.KindFiles && rc.MaxConcurrent != 0:
		bad(".maxConcurrent", "only a files route takes it (uploads in flight)")
	case rc.MaxConcurrent < 0:
		bad(".maxConcurrent", "must not be negative")
	}
	if body, spool := cmp.Or(rc.MaxBodyBytes, cfg.Server.Limits.MaxBodyBytes), cfg.Server.Limits.MaxSpoolBytes; rc.Kind == config.KindFiles && body > spool {
		bad(".maxBodyBytes", "%d is more than server.limits.maxSpoolBytes (%d): an upload that large could never be spooled", body, spool)
	}
	for i, m := range rc.Methods {
		if !slices.Contains(httpMethods, m) {
			bad(fmt.Sprintf(".methods[%d]", i), "%q is not an HTTP method", m)
		}
	}
	for m := range rc.Roles {
		if m != "*" && !slices.Contains(rc.Methods, m) {
			bad(".roles."+m, "not a method of the route")
		}
	}
	var model *Model
	if rc.Model != "" {
		if model = t.Models[rc.Model]; model == nil {
			bad(".model", "no model named %q%s", rc.Model, choices(rc.Model, "models", sortedKeys(t.Models)))
		}
	}
	var produces *mapping.KeyMap
	if rc.Produces != nil {
		km, err := mapping.NewKeyMap(rc.Produces)
		if err != nil {
			bad(".produces", "%v", err)
		}
		produces = km
	}
	r := &Route{Template: rc.Path, Index: index, Spec: rc, Versions: make(map[string]*VersionOptions)}
	for _, v := range sortedKeys(rc.Versions) {
		if !slices.Contains(cfg.Versions, v) {
			bad(".versions."+v, "version is not served")
		}
	}
	for _, v := range cfg.Versions {
		vc, listed := rc.Versions[v]
		if len(rc.Versions) > 0 && !listed {
			continue
		}
		o := &VersionOptions{MapKeys: boolOr(vc.MapKeys, true), DropNulls: boolOr(vc.DropNulls, true), KeyMap: produces}
		if o.KeyMap == nil && model != nil {
			o.KeyMap = model.Maps[v]
			o.Model = model
		}
		if len(vc.Fields) > 0 {
			for _, f := range vc.Fields {
				if model != nil && !slices.Contains(model.Fields, f) {
					bad(".versions."+v+".fields", "%q is not a field of model %s", f, model.Name)
				}
			}
			o.Select = mapping.NewFieldSet(vc.Fields...)
		}
		r.Versions[v] = o
	}
	return r, errs
}

// choices ends a message about an unknown name: "; did you mean X?" for a
// near miss, else the names there are.
func choices(name, label string, names []string) string {
	if hint := config.DidYouMean(name, names); hint != "" {
		return hint
	}
	if len(names) == 0 {
		return "; there are no " + label
	}
	return "; " + label + ": " + strings.Join(names, ", ")
}

func boolOr(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// Shape replaces parameter names so /a/{x} and /a/{y} compare equal: two
// templates of one shape serve the same paths.
func Shape(template string) string {
	segs := strings.Split(template, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = "{}"
		}
	}
	return strings.Join(segs, "/")
}

// checkTemplate accepts segments that are literal or a whole {name}.
func checkTemplate(t string) error {
	for _, seg := range strings.Split(t[1:], "/") {
		if seg == "" {
			return fmt.Errorf("empty segment in %q", t)
		}
		open, close := strings.Count(seg, "{"), strings.Count(seg, "}")
		if open != close || open > 1 || (open == 1 && (seg[0] != '{' || seg[len(seg)-1] != '}' || len(seg) < 3)) {
			return fmt.Errorf("segment %q must be literal or a whole {name}", seg)
		}
	}
	return nil
}

// upstreamParams lists the {name} placeholders of an upstream path template.
func upstreamParams(t string) []string {
	var out []string
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, t[i+1:i+j])
		t = t[i+j+1:]
	}
}
