package proxy

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
)

// target is a route's upstream path template, parsed once when the router is
// built: literal pieces and {param} placeholders, and the fixed query string.
type target struct {
	path  []piece
	query []piece
	// pass are the client query parameters passed on, in config order.
	pass []string
}

// piece is a literal (param == "") or a placeholder.
type piece struct {
	literal string
	param   string
}

// APIVersionPlaceholder in an upstreamPath is replaced by the upstream's
// configured API version (options.apiVersion), so that one setting names
// the version of every route, proxy routes included.
const APIVersionPlaceholder = "apiVersion"

// parseTarget splits an upstreamPath such as
// /sobjects/{type}/describe?fields=all into its path and query templates.
// Placeholders must be parameters of the route's path (params).
//
// {apiVersion} is replaced by apiVersion, the upstream's configured version,
// before the path parameters are read; it is refused when apiVersion is
// empty.
func parseTarget(upstreamPath string, params, pass []string, apiVersion string) (*target, error) {
	if !strings.HasPrefix(upstreamPath, "/") {
		return nil, fmt.Errorf("upstreamPath: %q must start with /", upstreamPath)
	}
	placeholder := "{" + APIVersionPlaceholder + "}"
	if strings.Contains(upstreamPath, placeholder) {
		if apiVersion == "" {
			return nil, fmt.Errorf("upstreamPath: %s needs the upstream's options.apiVersion", placeholder)
		}
		upstreamPath = strings.ReplaceAll(upstreamPath, placeholder, apiVersion)
	}
	p, q, _ := strings.Cut(upstreamPath, "?")
	t := &target{pass: pass}
	var err error
	if t.path, err = parsePieces(p, params); err != nil {
		return nil, err
	}
	if t.query, err = parsePieces(q, params); err != nil {
		return nil, err
	}
	return t, nil
}

func parsePieces(s string, params []string) ([]piece, error) {
	var out []piece
	for s != "" {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			out = append(out, piece{literal: s})
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("upstreamPath: unclosed { in %q", s)
		}
		if i > 0 {
			out = append(out, piece{literal: s[:i]})
		}
		name := s[i+1 : i+j]
		if !slices.Contains(params, name) {
			return nil, fmt.Errorf("upstreamPath: {%s} is not a parameter of the route", name)
		}
		out = append(out, piece{param: name})
		s = s[i+j+1:]
	}
	return out, nil
}

// url builds the backend URL of r under base. A path parameter is escaped
// for its place (path segment or query value), so a client cannot reach
// another backend path or add query parameters; "." and ".." are refused
// because a backend may resolve them as dot segments.
func (t *target) url(base string, r *http.Request) (string, error) {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(base, "/"))
	for _, p := range t.path {
		if p.param == "" {
			b.WriteString(p.literal)
			continue
		}
		v := router.Param(r, p.param)
		if v == "" || v == "." || v == ".." {
			return "", envelope.InvalidParameter(p.param, "must not be empty, . or ..")
		}
		b.WriteString(url.PathEscape(v))
	}
	sep := byte('?')
	if len(t.query) > 0 {
		b.WriteByte(sep)
		sep = '&'
		for _, p := range t.query {
			if p.param == "" {
				b.WriteString(p.literal)
				continue
			}
			b.WriteString(url.QueryEscape(router.Param(r, p.param)))
		}
	}
	if len(t.pass) > 0 {
		q := r.URL.Query()
		for _, name := range t.pass {
			for _, v := range q[name] {
				b.WriteByte(sep)
				sep = '&'
				b.WriteString(url.QueryEscape(name))
				b.WriteByte('=')
				b.WriteString(url.QueryEscape(v))
			}
		}
	}
	return b.String(), nil
}
