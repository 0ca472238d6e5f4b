// Package openapi serves GET /{version}/settings/openapi: the OpenAPI 3.1
// document of one version, generated from the route table the router is
// built from, so it describes exactly what is served.
package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
)

// title is the document's info.title.
const title = "Gateway API"

// New returns the factory of kind openapi. The document of every served
// version is rendered once, when the router is built; a reload renders new
// ones. It lists each route serving that version with {version} replaced,
// its path parameters and (proxy routes) passed query parameters, each
// method with its summary, request bodies of POST, PUT and PATCH, the
// envelope and error envelope, and per route the record's field names as
// that version exposes them.
//
// The document is answered raw (call.Document), not enveloped: OpenAPI
// tools read the document itself and would not find it inside "result".
// Errors on this route are still enveloped.
func New(t *routes.Table) router.Factory {
	return func(*routes.Route) (map[string]call.Handler, error) {
		docs := make(map[string][]byte, len(t.Versions))
		for _, v := range t.Versions {
			b, err := json.Marshal(Document(t, v))
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

// Document builds the OpenAPI 3.1 document of version v of t.
func Document(t *routes.Table, v string) map[string]any {
	paths := obj{}
	for _, rt := range t.Routes {
		o, ok := rt.Versions[v]
		if !ok {
			continue
		}
		path := strings.Replace(rt.Template, "{version}", v, 1)
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			if params := pathParams(rt.Template); len(params) > 0 {
				item["parameters"] = params
			}
			paths[path] = item
		}
		for _, m := range rt.Spec.Methods {
			item[strings.ToLower(m)] = operation(rt, m, o)
		}
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": title, "version": v,
			"description": "Every answer is an envelope (Envelope) or an error envelope (ErrorEnvelope) whose responseCode names the error."},
		"paths":      paths,
		"components": obj{"schemas": commonSchemas()},
	}
}

func pathParams(template string) []any {
	var out []any
	for _, p := range routes.PathParams(template) {
		out = append(out, obj{"name": p, "in": "path", "required": true, "schema": obj{"type": "string"}})
	}
	return out
}

func operation(rt *routes.Route, method string, o *routes.VersionOptions) obj {
	op := obj{"responses": responses(rt, o)}
	if rt.Spec.Summary != "" {
		op["summary"] = rt.Spec.Summary
	}
	if rt.Spec.Kind == config.KindProxy && len(rt.Spec.Query) > 0 {
		var qs []any
		for _, q := range rt.Spec.Query {
			qs = append(qs, obj{"name": q, "in": "query", "required": false, "schema": obj{"type": "string"}})
		}
		op["parameters"] = qs
	}
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		body := recordSchema(o)
		if body == nil {
			body = obj{}
		}
		op["requestBody"] = obj{"content": obj{"application/json": obj{"schema": body}}}
	}
	return op
}

func responses(rt *routes.Route, o *routes.VersionOptions) obj {
	errResp := obj{"description": "an error; responseCode names it",
		"content": obj{"application/json": obj{"schema": ref("ErrorEnvelope")}}}
	if rt.Spec.Kind == config.KindOpenAPI {
		return obj{
			"200":     obj{"description": "this document, not enveloped", "content": obj{"application/json": obj{"schema": obj{"type": "object"}}}},
			"default": errResp,
		}
	}
	result := obj{}
	if rec := recordSchema(o); rec != nil {
		result = obj{"anyOf": []any{rec, obj{"type": "array", "items": rec}, obj{"const": ""}}}
	}
	ok := obj{"allOf": []any{ref("Envelope"), obj{"properties": obj{"result": result}}}}
	return obj{
		"2XX":     obj{"description": "the envelope", "content": obj{"application/json": obj{"schema": ok}}},
		"default": errResp,
	}
}
