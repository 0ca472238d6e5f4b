// Package openapi serves GET /{version}/settings/openapi: the OpenAPI 3.1
// document of one version, generated from the route table the router is
// built from and from the operations each route kind declares
// (gateway/contract), which the router also checks requests against, so
// the document describes exactly what is served and checked.
//
// The document is written for the client generators and contract-checking
// proxies client teams run: every record schema is a named component, every
// number has its format, every error status has its own shared response,
// response headers are declared once (components.headers) and referred to,
// and HEAD and OPTIONS, which the router answers on every path, are
// declared operations.
package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
)

// title is the document's info.title.
const title = "Gateway API"

// Settings are what the document says beyond the routes: how callers
// authenticate, how errors are answered, and whom to ask.
type Settings struct {
	// AuthMode is auth.mode: none, jwt or apikey.
	AuthMode string
	// Always200 is errors.statusMode always200: errors are answered 200.
	Always200 bool
	// RateLimited: auth.rateLimit is on or a quota is configured, so any
	// operation may answer 429.
	RateLimited bool
	// ServerURL is the document's server; "" is "/", the origin the
	// document was fetched from.
	ServerURL string
	// Contact is info.contact (server.contact).
	Contact config.Contact
}

// SettingsOf returns the document settings of cfg.
func SettingsOf(cfg *config.Config) Settings {
	return Settings{AuthMode: cfg.Auth.Mode, Always200: cfg.Errors.StatusMode == config.StatusAlways200,
		RateLimited: cfg.Auth.RateLimit.RequestsPerSecond > 0 || cfg.Auth.Limited(), ServerURL: cfg.Server.PublicURL,
		Contact: cfg.Server.Contact}
}

// New returns the factory of kind openapi. The document of every served
// version is rendered once, when the router is built; a reload renders new
// ones.
//
// The document is answered raw (call.Document), not enveloped: OpenAPI
// tools read the document itself and would not find it inside "result".
// Errors on this route are still enveloped.
func New(t *routes.Table, reg contract.Registry, s Settings) router.Factory {
	return func(*routes.Route) (map[string]call.Handler, error) {
		docs := make(map[string][]byte, len(t.Versions))
		for _, v := range t.Versions {
			b, err := json.Marshal(Document(t, reg, s, v))
			if err != nil {
				return nil, fmt.Errorf("openapi document of %s: %w", v, err)
			}
			docs[v] = b
		}
		return map[string]call.Handler{http.MethodGet: func(_ *http.Request, c *call.Call) (call.Result, error) {
			return call.Result{JSON: docs[c.Version], Form: call.Document}, nil
		}}, nil
	}
}

// Document builds the OpenAPI 3.1 document of version v of t: every
// operation declared in reg with its parameters, body, answers per status
// and security, HEAD beside every GET and OPTIONS on every path (as the
// router answers them), the envelope and error schemas, and each route's
// record as v exposes it.
func Document(t *routes.Table, reg contract.Registry, s Settings, v string) *openapi3.T {
	b := newBuilder(s, v)
	contact := &openapi3.Contact{Name: cmpOr(s.Contact.Name, config.DefaultContactName), URL: s.Contact.URL, Email: s.Contact.Email}
	doc := &openapi3.T{
		OpenAPI: "3.1.0",
		Info: &openapi3.Info{Title: title, Version: v, Description: b.description(), Contact: contact,
			License: &openapi3.License{Name: "Proprietary", Identifier: "LicenseRef-Proprietary"}},
		Servers: openapi3.Servers{{URL: cmpOr(s.ServerURL, "/"), Description: "this gateway"}},
		Paths:   openapi3.NewPaths(),
	}
	var paths []string
	templates := map[string]*routes.Route{}
	for _, rt := range t.Routes {
		o, ok := rt.Versions[v]
		if !ok {
			continue
		}
		path := strings.Replace(rt.Template, "{version}", v, 1)
		item := doc.Paths.Value(path)
		if item == nil {
			item = &openapi3.PathItem{}
			doc.Paths.Set(path, item)
			paths = append(paths, path)
			templates[path] = rt
		}
		for _, m := range rt.Spec.Methods {
			op, declared := reg.Of(rt, m)
			if !declared {
				op = contract.Operation{}
			}
			item.SetOperation(m, b.operation(rt, m, o, op))
		}
	}
	// The router answers HEAD with every GET and OPTIONS on every path;
	// a route that serves either itself keeps its own.
	for _, path := range paths {
		item := doc.Paths.Value(path)
		if item.Get != nil && item.Head == nil {
			item.Head = b.head(item.Get)
		}
		if item.Options == nil {
			item.Options = b.options(templates[path], item)
		}
	}
	doc.Tags = b.usedTags()
	doc.Components = b.components()
	return doc
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// builder renders one version's document, collecting the components its
// operations refer to.
type builder struct {
	settings Settings
	version  string
	// schemas, headers and responses are the document's components.
	schemas   openapi3.Schemas
	headers   openapi3.Headers
	responses openapi3.ResponseBodies
	// held holds the JSON of the schemas register has compared, by
	// name.
	held map[string]string
	// ids counts the operationIds given, to make each unique.
	ids map[string]int
	// tags are the tags the operations use.
	tags map[string]bool
}

func newBuilder(s Settings, v string) *builder {
	return &builder{settings: s, version: v, schemas: commonSchemas(), headers: openapi3.Headers{},
		responses: openapi3.ResponseBodies{}, held: map[string]string{}, ids: map[string]int{}, tags: map[string]bool{}}
}

func (b *builder) components() *openapi3.Components {
	return &openapi3.Components{Schemas: b.schemas, Headers: b.headers, Responses: b.responses,
		SecuritySchemes: securitySchemes(b.settings.AuthMode)}
}

func (b *builder) description() string {
	d := "Every answer is an envelope (Envelope) or an error envelope (ErrorEnvelope) whose responseCode names " +
		"the error. A query parameter an operation does not list is refused with PARAMETER_INVALID (400). " +
		"Every GET also answers HEAD (its status and headers, no body), and every path answers OPTIONS " +
		"(204 with Allow); both are declared. Numbers are exact: integers say int32 or int64, JSON numbers " +
		"are doubles (format double) whose text passes the gateway unchanged, and a decimal that must keep " +
		"its digits is a string of them (format decimal)."
	if b.settings.Always200 {
		d += " This gateway answers errors with HTTP status 200 (errors.statusMode always200): an answer is an " +
			"error when it has a responseCode member."
	}
	return d
}

func (b *builder) operation(rt *routes.Route, method string, o *routes.VersionOptions, op contract.Operation) *openapi3.Operation {
	rec := b.records(rt, o)
	out := &openapi3.Operation{Summary: rt.Spec.Summary, Description: op.Description, Tags: []string{b.tag(rt)},
		OperationID: b.operationID(op.ID, method, rt.Template), Responses: openapi3.NewResponses()}
	if out.Summary == "" {
		out.Summary = method + " " + rt.Template
	}
	if out.Description == "" {
		out.Description = out.Summary + "."
	}
	out.Parameters = parameters(rt.Template, op)
	if op.Body != nil {
		out.RequestBody = &openapi3.RequestBodyRef{Value: b.requestBody(op.Body, rec)}
	}
	out.Security = b.security(false)
	if b.settings.RateLimited {
		op.Headers = append(op.Headers, contract.RateLimitFields()...)
	}
	if rt.Spec.Cache != nil && method == http.MethodGet {
		op.Headers = append(op.Headers, contract.CacheFields()...)
	}
	b.fillResponses(out.Responses, rt, method, op, rec)
	if rt.Spec.Cache != nil && method == http.MethodGet {
		b.cacheAnswers(out.Responses, rt, op.Headers)
	}
	return out
}

// security is what an operation requires: the scheme of the auth mode, or
// nothing under auth.mode none; optional is for OPTIONS, which a CORS
// preflight sends without credentials.
func (b *builder) security(optional bool) *openapi3.SecurityRequirements {
	sec := openapi3.SecurityRequirements{}
	if name := schemeName(b.settings.AuthMode); name != "" {
		if optional {
			sec = append(sec, openapi3.SecurityRequirement{})
		}
		sec = append(sec, openapi3.SecurityRequirement{name: []string{}})
	}
	return &sec
}

// operationID is id (or one made of method and template), unique in the
// document.
func (b *builder) operationID(id, method, template string) string {
	if id == "" {
		id = strings.ToLower(method) + contract.PathName(template)
	}
	b.ids[id]++
	if n := b.ids[id]; n > 1 {
		id += strconv.Itoa(n)
	}
	return id
}

// parameters are op's path and query parameters; a path parameter of the
// template that op does not declare is a required string.
func parameters(template string, op contract.Operation) openapi3.Parameters {
	var out openapi3.Parameters
	for _, name := range routes.PathParams(template) {
		p := contract.Param{Name: name, Required: true}
		if i := slices.IndexFunc(op.Path, func(d contract.Param) bool { return d.Name == name }); i >= 0 {
			p = op.Path[i]
			p.Required = true
		}
		out = append(out, &openapi3.ParameterRef{Value: parameter(p, openapi3.ParameterInPath)})
	}
	for _, p := range op.Query {
		out = append(out, &openapi3.ParameterRef{Value: parameter(p, openapi3.ParameterInQuery)})
	}
	return out
}

func parameter(p contract.Param, in string) *openapi3.Parameter {
	var s *openapi3.Schema
	switch p.Type {
	case contract.Integer:
		s = contract.Int64()
		if p.Min >= -1<<31 && p.Max <= 1<<31-1 {
			s = contract.Int32()
		}
		s = s.WithMin(float64(p.Min)).WithMax(float64(p.Max))
	case contract.Boolean:
		s = openapi3.NewBoolSchema()
	default:
		s = openapi3.NewStringSchema()
		if p.Enum != nil {
			vals := make([]any, len(p.Enum))
			for i, e := range p.Enum {
				vals[i] = e
			}
			s.Enum = vals
		} else {
			s.MinLength = 1
		}
		if p.MaxLength > 0 {
			s.WithMaxLength(int64(p.MaxLength))
		}
		s.Pattern = p.Pattern
	}
	if p.Default != "" {
		s.Default = typedDefault(p)
	}
	desc := p.Description
	if p.Backend != "" {
		desc = strings.TrimSpace(desc + "; sent to the backend as " + p.Backend)
	}
	return &openapi3.Parameter{Name: p.Name, In: in, Required: p.Required, Description: desc,
		Schema: &openapi3.SchemaRef{Value: s}}
}

func typedDefault(p contract.Param) any {
	switch p.Type {
	case contract.Integer:
		n, _ := strconv.ParseInt(p.Default, 10, 64)
		return n
	case contract.Boolean:
		return p.Default == "true"
	}
	return p.Default
}

func (b *builder) requestBody(body *contract.Body, rec contract.RecordSchemas) *openapi3.RequestBody {
	media := cmpOr(body.Media, contract.JSON)
	schema := contract.AnyObject()
	if body.Shape != nil {
		schema = body.Shape(rec)
	}
	mt := &openapi3.MediaType{Schema: b.named(schema)}
	return &openapi3.RequestBody{Description: body.Description, Required: body.Required,
		Content: openapi3.Content{media: mt}}
}
