// Package router turns the route table into a gorilla/mux router: one mux
// route per (template, method) whose handler comes from the factory of the
// route's kind, then one catch-all per template that answers 405 with the
// template's Allow list, and a not-found handler for everything else. Every
// answer, 404 and 405 included, is an envelope written by call.Writer. In
// front of mux, a map answers the paths with no variable but the version,
// exactly as mux would (exact.go).
package router

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
)

// Factory builds the handlers of one route, by method. It is called once per
// route when the router is built; an error names what is wrong.
type Factory func(rt *routes.Route) (map[string]call.Handler, error)

// Options configure New.
type Options struct {
	// Kinds maps a route kind to the factory of its handlers.
	Kinds map[string]Factory
	// Writer writes every answer.
	Writer *call.Writer
	// MaxBodyBytes is the body limit of routes that set none.
	MaxBodyBytes int64
	// Contracts declares each route's operations; a request's query is
	// checked against its operation's declaration before the handler runs
	// (contract.Operation.CheckQuery). A kind without a declaration takes
	// any query.
	Contracts contract.Registry
	// Logger, when its level is debug, logs the route each request took;
	// at any other level (or nil) routing logs nothing and costs nothing.
	Logger *slog.Logger
	// Wrap, when not nil, returns the handler of a route's method to
	// serve in place of h (the response cache's, gateway/cache): it runs
	// after the route's checks (roles, query, body limit, call options).
	// Nil serves h.
	Wrap func(rt *routes.Route, method string, h call.Handler) call.Handler
}

// New builds the router for t. Routes whose kind has no factory are an error,
// so a table always serves everything it lists.
//
// Every GET also answers HEAD (the GET's handler: its headers, and no body,
// which the servers drop), unless a route of the same template serves HEAD
// itself; OPTIONS on a served path answers 204 with the Allow list (a CORS
// preflight is answered before authentication, by middleware.CORS). The
// Allow list of OPTIONS and of a 405 names HEAD and OPTIONS too.
func New(t *routes.Table, o Options) (*Router, error) {
	r := mux.NewRouter()
	r.SkipClean(true) // the gateway answers unclean paths 404, never redirects
	r.UseEncodedPath()
	allow := make(map[string][]string)
	first := make(map[string]*routes.Route)
	for _, rt := range t.Routes {
		key := routes.Shape(rt.Template)
		allow[key] = append(allow[key], rt.Spec.Methods...)
		if first[key] == nil {
			first[key] = rt
		}
	}
	var regs []registered
	owner := make(map[*mux.Route]*routes.Route)
	var debug *slog.Logger
	if o.Logger != nil && o.Logger.Enabled(context.Background(), slog.LevelDebug) {
		debug = o.Logger
	}
	for _, rt := range t.Routes {
		factory, ok := o.Kinds[rt.Spec.Kind]
		if !ok {
			return nil, fmt.Errorf("routes[%d].kind: no handler for kind %q", rt.Index, rt.Spec.Kind)
		}
		handlers, err := factory(rt)
		if err != nil {
			return nil, fmt.Errorf("routes[%d]: %w", rt.Index, err)
		}
		pattern := muxPattern(rt.Template)
		for _, m := range rt.Spec.Methods {
			h, ok := handlers[m]
			if !ok {
				return nil, fmt.Errorf("routes[%d].methods: kind %s does not serve %s", rt.Index, rt.Spec.Kind, m)
			}
			if o.Wrap != nil {
				h = o.Wrap(rt, m, h)
			}
			methods := []string{m}
			if m == http.MethodGet && !slices.Contains(allow[routes.Shape(rt.Template)], http.MethodHead) {
				methods = append(methods, http.MethodHead)
			}
			route := r.Path(pattern).Methods(methods...).MatcherFunc(servesVersion(rt)).
				Handler(extendDeadlines(rt.Spec.BodyTimeout, o.Writer.Serve(guard(rt, m, h, o, debug))))
			owner[route] = rt
			for _, method := range methods {
				regs = append(regs, registered{rt: rt, method: method, route: route})
			}
		}
	}
	for key, rt := range first {
		methods := allowed(allow[key])
		route := r.Path(muxPattern(rt.Template)).MatcherFunc(servesVersion(rt)).
			Handler(methodNotAllowed(o.Writer, rt, methods))
		owner[route] = rt
	}
	r.NotFoundHandler = notFound(o.Writer)
	return &Router{exact: newExact(r, regs), mux: r, owner: owner}, nil
}

// allowed is the Allow list of a template served with methods: those,
// HEAD with GET, and OPTIONS, sorted.
func allowed(methods []string) []string {
	out := slices.Clone(methods)
	if slices.Contains(out, http.MethodGet) {
		out = append(out, http.MethodHead)
	}
	out = append(out, http.MethodOptions)
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// Router is the built router: an http.Handler, and the route a request's
// path belongs to, for what must know it before the router runs (CORS).
type Router struct {
	exact http.Handler
	mux   *mux.Router
	// owner is the route each mux route serves.
	owner map[*mux.Route]*routes.Route
}

// ServeHTTP routes r.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.exact.ServeHTTP(w, r) }

// Route returns the route whose template and version r's path matches,
// whatever r's method, or nil.
func (rt *Router) Route(r *http.Request) *routes.Route {
	var m mux.RouteMatch
	if !rt.mux.Match(r, &m) || m.Route == nil {
		return nil
	}
	return rt.owner[m.Route]
}

// guard binds the call to its route and version, checks roles, bounds the
// body and passes the route's upstream call options on.
func guard(rt *routes.Route, method string, h call.Handler, o Options, debug *slog.Logger) call.Handler {
	roles := rt.Spec.Roles[method]
	if roles == nil {
		roles = rt.Spec.Roles["*"]
	}
	limit := rt.Spec.MaxBodyBytes
	if limit == 0 {
		limit = o.MaxBodyBytes
	}
	op, declared := o.Contracts.Of(rt, method)
	opts := upstreams.CallOptions{Timeout: rt.Spec.Timeout, NoRetry: rt.Spec.NoRetry, MaxAnswer: rt.Spec.MaxAnswerBytes,
		Essential: rt.Spec.Essential}
	kind := rt.Spec.Kind
	if rt.Spec.Action != "" {
		kind += ":" + rt.Spec.Action
	}
	return func(r *http.Request, c *call.Call) (call.Result, error) {
		bind(c, rt, r)
		if debug != nil {
			debug.LogAttrs(r.Context(), slog.LevelDebug, "route", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.String("route", rt.Template), slog.String("kind", kind), slog.String("version", c.Version),
				slog.String("upstream", rt.Spec.Upstream), slog.String("user_id", c.Identity.UserID), slog.String("trace_id", c.TraceID))
		}
		if len(roles) > 0 && !c.Identity.HasRole(roles) {
			return call.Result{}, envelope.New(envelope.AccessDenied, c.Identity.UserID, strings.Join(roles, ", "))
		}
		if declared {
			if err := checkQuery(r, &op); err != nil {
				return call.Result{}, err
			}
		}
		if r.ContentLength > limit {
			return call.Result{}, envelope.New(envelope.RequestTooLarge, fmt.Sprintf("the body is over %d bytes", limit))
		}
		if r.Body != nil && r.Body != http.NoBody {
			// a request without a body (servers give it NoBody) has nothing
			// to bound, and the reader would be an allocation per request
			r.Body = http.MaxBytesReader(nil, r.Body, limit)
		}
		if opts != (upstreams.CallOptions{}) {
			r = call.WithCallOptions(r, c, opts)
		}
		return h(r, c)
	}
}

// checkQuery checks r's query against op: one strict parse, then the
// declaration (nothing is parsed when there is no query).
func checkQuery(r *http.Request, op *contract.Operation) error {
	if r.URL.RawQuery == "" {
		return op.CheckEmpty()
	}
	q, err := call.ParseQuery(r)
	if err != nil {
		return err
	}
	return op.CheckQuery(q)
}

// extendDeadlines gives a route's requests their own read and write
// deadline (uploads that outlast the listener's timeouts); d == 0 keeps the
// listener's.
func extendDeadlines(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		deadline := time.Now().Add(d)
		_ = rc.SetReadDeadline(deadline) // unsupported writers keep the listener's deadlines
		_ = rc.SetWriteDeadline(deadline)
		next.ServeHTTP(w, r)
	})
}

func bind(c *call.Call, rt *routes.Route, r *http.Request) {
	c.Route = rt
	c.Version = VersionOf(r.URL.Path)
	c.Options = rt.Versions[c.Version]
}

func methodNotAllowed(w *call.Writer, rt *routes.Route, methods []string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := call.From(r.Context())
		bind(c, rt, r)
		if r.Method == http.MethodOptions {
			w.NoContent(rw, c, methods)
			return
		}
		w.Error(rw, r, c, &envelope.Error{ID: envelope.URLInvalid, Status: http.StatusMethodNotAllowed, Allow: methods,
			Detail: r.Method + " is not served on " + rt.Template})
	})
}

func notFound(w *call.Writer) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := call.From(r.Context())
		detail := "no such path"
		if v := VersionOf(r.URL.Path); v == "" {
			detail = "the path must start with a version such as /v1/"
		}
		w.Error(rw, r, c, &envelope.Error{ID: envelope.URLInvalid, Status: http.StatusNotFound, Detail: detail})
	})
}

// servesVersion matches when the path's version is one the route serves.
func servesVersion(rt *routes.Route) mux.MatcherFunc {
	return func(r *http.Request, _ *mux.RouteMatch) bool {
		return rt.Serves(VersionOf(r.URL.Path))
	}
}

// VersionOf returns the first path segment when it is v plus a number
// (v1, v22), else "".
func VersionOf(path string) string {
	if len(path) < 3 || path[0] != '/' || path[1] != 'v' {
		return ""
	}
	end := strings.IndexByte(path[1:], '/')
	if end < 0 {
		end = len(path) - 1
	}
	seg := path[1 : 1+end]
	if len(seg) < 2 || len(seg) > 10 {
		return ""
	}
	for i := 1; i < len(seg); i++ {
		if seg[i] < '0' || seg[i] > '9' {
			return ""
		}
	}
	return seg
}

// muxPattern turns /{version}/a/{id} into a mux template whose version
// segment only matches v plus digits and whose parameters match one segment.
func muxPattern(template string) string {
	return strings.Replace(template, "{version}", "{version:v[0-9]+}", 1)
}

// Param returns the path parameter name of r, unescaped.
func Param(r *http.Request, name string) string {
	v := mux.Vars(r)[name]
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}
