package middleware

import (
	"net/http"
	"slices"

	"github.com/rs/cors"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
)

// RouteOf names the route a request's path belongs to, whatever its
// method (router.Router.Route); nil when none.
type RouteOf func(r *http.Request) *routes.Route

// CORSPolicies are the CORS policies of one configuration, one per route
// whose policy (its own cors, else server.cors) allows any origin.
type CORSPolicies map[*routes.Route]*cors.Cors

// NewCORSPolicies builds the policy of every route of t under the gateway's
// policy def: each with rs/cors, its methods defaulting to the route's
// (HEAD with GET). nil when no route has CORS on.
func NewCORSPolicies(t *routes.Table, def config.CORS) CORSPolicies {
	var out CORSPolicies
	for _, rt := range t.Routes {
		c := &def
		if rt.Spec.CORS != nil {
			c = rt.Spec.CORS
		}
		if !c.Enabled() {
			continue
		}
		methods := c.AllowedMethods
		if len(methods) == 0 {
			methods = slices.Clone(rt.Spec.Methods)
			if slices.Contains(methods, http.MethodGet) {
				methods = append(methods, http.MethodHead)
			}
		}
		if out == nil {
			out = CORSPolicies{}
		}
		out[rt] = cors.New(cors.Options{AllowedOrigins: c.AllowedOrigins, AllowedMethods: methods,
			AllowedHeaders: c.Headers(), ExposedHeaders: c.Exposed(), AllowCredentials: c.AllowCredentials,
			MaxAge: int(c.MaxAge.Seconds())})
	}
	return out
}

// CORS applies the policy of the route a request is for (rs/cors): a
// preflight (OPTIONS with Origin and Access-Control-Request-Method) of a
// route with a policy is answered here, 204, before authentication, since
// browsers send it without credentials; the answer of any other request of
// such a route gets the CORS headers its origin earns (none for an origin
// the policy does not allow, which the browser then refuses). A route
// without a policy, or a preflight of a method no route of the path
// serves, passes on unchanged (the router then answers OPTIONS with Allow,
// without CORS headers). With no policy at all CORS returns next itself.
func CORS(next http.Handler, routeOf RouteOf, policies CORSPolicies) http.Handler {
	if len(policies) == 0 {
		return next
	}
	wrapped := make(map[*routes.Route]http.Handler, len(policies))
	for rt, p := range policies {
		wrapped[rt] = p.Handler(next)
	}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") == "" {
			next.ServeHTTP(rw, r)
			return
		}
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		target := r
		if preflight {
			// the route of the method the browser asks about: templates
			// shared by several routes have one per method
			shallow := *r
			shallow.Method = r.Header.Get("Access-Control-Request-Method")
			target = &shallow
		}
		rt := routeOf(target)
		h, ok := wrapped[rt]
		if !ok {
			next.ServeHTTP(rw, r)
			return
		}
		if preflight {
			c := call.From(r.Context())
			c.Route, c.Status = rt, http.StatusNoContent
		}
		h.ServeHTTP(rw, r)
	})
}
