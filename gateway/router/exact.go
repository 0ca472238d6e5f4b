package router

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"github.com/restgate/gateway/gateway/routes"
)

// exactKey is a request line a map can answer: method and escaped path.
type exactKey struct{ method, path string }

// exact answers the requests whose path has no variable once its version is
// filled in (GET /v2/accounts) from a map, and hands every other request to
// mux. A template with no variable but {version} has one path per served
// version; each (method, path) enters the map only when mux itself, asked
// when the router is built, picks that route's handler for it, so the map
// never answers differently from mux: an earlier route whose variables match
// the same path, 404s, 405s, trailing slashes and encoded paths all stay
// mux's. Matching depends on nothing but method and path (no host, query or
// header matchers), which is what makes the build-time answer hold for
// every request. Handlers served from the map see no mux variables; their
// templates have none but the version, which bind reads from the path.
type exact struct {
	routes map[exactKey]http.Handler
	mux    *mux.Router
}

// registered is one mux route New added for a (template, method).
type registered struct {
	rt     *routes.Route
	method string
	route  *mux.Route
}

// newExact builds the map over r from the routes New registered.
func newExact(r *mux.Router, regs []registered) http.Handler {
	e := &exact{routes: make(map[exactKey]http.Handler), mux: r}
	for _, reg := range regs {
		if strings.Count(reg.rt.Template, "{") != 1 {
			continue
		}
		for v := range reg.rt.Versions {
			path := strings.Replace(reg.rt.Template, "{version}", v, 1)
			if h := matched(r, reg, path); h != nil {
				e.routes[exactKey{reg.method, path}] = h
			}
		}
	}
	return e
}

// matched returns the handler mux serves method and path with when that is
// reg's route, else nil.
func matched(r *mux.Router, reg registered, path string) http.Handler {
	u := &url.URL{Path: path}
	if u.EscapedPath() != path {
		return nil // a template mux would only match encoded
	}
	var m mux.RouteMatch
	if !r.Match(&http.Request{Method: reg.method, URL: u}, &m) || m.Route != reg.route {
		return nil
	}
	return m.Handler
}

func (e *exact) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := e.routes[exactKey{r.Method, r.URL.EscapedPath()}]; ok {
		h.ServeHTTP(w, r)
		return
	}
	e.mux.ServeHTTP(w, r)
}
