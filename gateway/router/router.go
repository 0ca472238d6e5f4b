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
	// Logger, when its level is debug, logs the route each request took;
	// at any other level (or nil) routing logs nothing and costs nothing.
	Logger *slog.Logger
}

// New builds the router for t. Routes whose kind has no factory are an error,
// so a table always serves everything it lists.
func New(t *routes.Table, o Options) (http.Handler, error) {
	r := mux.NewRouter()
	r.SkipClean(true) // the gateway answers unclean paths 404, never redirects
	r.UseEncodedPath()
	allow := make(map[string][]string)
	first := make(map[string]*routes.Route)
	var regs []registered
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
			route := r.Path(pattern).Methods(m).MatcherFunc(servesVersion(rt)).
				Handler(extendDeadlines(rt.Spec.BodyTimeout, o.Writer.Serve(guard(rt, m, h, o.MaxBodyBytes, debug))))
			regs = append(regs, registered{rt: rt, method: m, route: route})
		}
		key := routes.Shape(rt.Template)
		allow[key] = append(allow[key], rt.Spec.Methods...)
		if first[key] == nil {
			first[key] = rt
		}
	}
	for key, rt := range first {
		methods := slices.Compact(slices.Sorted(slices.Values(allow[key])))
		r.Path(muxPattern(rt.Template)).MatcherFunc(servesVersion(rt)).
			Handler(methodNotAllowed(o.Writer, rt, methods))
	}
	r.NotFoundHandler = notFound(o.Writer)
	return newExact(r, regs), nil
}

// guard binds the call to its route and version, checks roles, bounds the
// body and passes the route's upstream call options on.
func guard(rt *routes.Route, method string, h call.Handler, defaultMax int64, debug *slog.Logger) call.Handler {
	roles := rt.Spec.Roles[method]
	if roles == nil {
		roles = rt.Spec.Roles["*"]
	}
	limit := rt.Spec.MaxBodyBytes
	if limit == 0 {
		limit = defaultMax
	}
	opts := upstreams.CallOptions{Timeout: rt.Spec.Timeout, NoRetry: rt.Spec.NoRetry}
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
		if r.ContentLength > limit {
			return call.Result{}, envelope.New(envelope.RequestTooLarge, fmt.Sprintf("the body is over %d bytes", limit))
		}
		r.Body = http.MaxBytesReader(nil, r.Body, limit)
		if opts != (upstreams.CallOptions{}) {
			r = call.WithCallOptions(r, c, opts)
		}
		return h(r, c)
	}
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
