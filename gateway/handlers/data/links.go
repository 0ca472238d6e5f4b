package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// Linker turns the backend addresses a data API answer carries
// (attributes.url, nextRecordsUrl, describe urls, the version list's url,
// the resource map's paths) into the gateway paths that answer the same
// thing, using the data routes of one upstream in the route table. An
// address no route answers (a record's row URL, a layout, the org's UI
// pages, any absolute URL) is removed: nothing a client receives names a
// backend host or a path it cannot call through the gateway.
type Linker struct {
	apiVersion string
	// templates maps a data action to its route's template.
	templates map[string]string
}

// NewLinker returns the Linker of the data routes of upstream in t, whose
// backend speaks apiVersion.
func NewLinker(t *routes.Table, upstream, apiVersion string) *Linker {
	l := &Linker{apiVersion: apiVersion, templates: make(map[string]string)}
	for _, r := range t.Routes {
		if r.Spec.Kind == config.KindData && r.Spec.Upstream == upstream {
			if _, dup := l.templates[r.Spec.Action]; !dup {
				l.templates[r.Spec.Action] = r.Template
			}
		}
	}
	return l
}

// linkKeys are the members that hold backend addresses in data API answers.
var linkKeys = mapping.NewFieldSet("url", "urls", "nextRecordsUrl")

// Links is the mapping.Links of answers to a call of version.
func (l *Linker) Links(version string) *mapping.Links {
	return &mapping.Links{Keys: linkKeys, Value: func(dst []byte, key string, raw []byte) ([]byte, bool, error) {
		if key == "urls" {
			return l.appendURLs(dst, version, raw)
		}
		var s *string
		if json.Unmarshal(raw, &s) != nil {
			return dst, false, nil
		}
		if s == nil {
			return append(dst, "null"...), true, nil
		}
		p, ok := l.Path(*s, version)
		switch {
		case ok:
			return mapping.AppendString(dst, p), true, nil
		case key == "nextRecordsUrl":
			// Dropping it would cut the list short without a word.
			return nil, false, invalidAnswer("nextRecordsUrl is not a query locator", errBadLocator)
		}
		return dst, false, nil
	}}
}

var errBadLocator = errors.New("nextRecordsUrl names no batch the gateway can answer")

// appendURLs rewrites a describe's urls object member by member, keeping
// their order and leaving out those no route answers; a urls member that
// is not such an object is left out.
func (l *Linker) appendURLs(dst []byte, version string, raw []byte) ([]byte, bool, error) {
	out, err := l.appendPaths(dst, raw, version)
	if err != nil {
		return dst, false, nil
	}
	return out, true, nil
}

var errNotObject = errors.New("not a JSON object")

// appendPaths appends the object raw (name -> backend address) with each
// address that a data route answers rewritten to its gateway path, in
// raw's order, and the others left out; a member whose value is not a
// string is left out too. The error is errNotObject, or JSON's.
func (l *Linker) appendPaths(dst, raw []byte, version string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return dst, errors.Join(errNotObject, err)
	}
	dst = append(dst, '{')
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return dst, err
		}
		name, _ := tok.(string)
		var addr string
		if dec.Decode(&addr) != nil {
			continue
		}
		if p, ok := l.Path(addr, version); ok {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = mapping.AppendString(dst, name)
			dst = append(dst, ':')
			dst = mapping.AppendString(dst, p)
			n++
		}
	}
	return append(dst, '}'), nil
}

// Path is the gateway path of version that answers the backend address
// addr, or false when no data route does.
func (l *Linker) Path(addr, version string) (string, bool) {
	u, err := url.Parse(addr)
	if err != nil || u.IsAbs() || u.Host != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	rest, ok := strings.CutPrefix(u.EscapedPath(), "/services/data")
	if !ok {
		return "", false
	}
	seg := strings.Split(strings.Trim(rest, "/"), "/")
	if rest == "" || rest == "/" {
		return l.fill(config.ActionVersions, version, nil)
	}
	v := seg[0]
	if _, ok := dataapi.VersionNumber(v); !ok || !strings.HasPrefix(v, "v") {
		return "", false
	}
	if len(seg) == 1 {
		return l.fill(config.ActionResources, version, map[string]string{ParamAPIVersion: v})
	}
	if v != l.apiVersion {
		// The gateway's other routes speak its own version only.
		return "", false
	}
	switch {
	case len(seg) == 2 && seg[1] == "sobjects":
		return l.fill(config.ActionSObjects, version, nil)
	case len(seg) == 3 && seg[1] == "sobjects":
		return l.fill(config.ActionSObject, version, map[string]string{ParamType: seg[2]})
	case len(seg) == 4 && seg[1] == "sobjects" && seg[3] == "describe":
		return l.fill(config.ActionDescribe, version, map[string]string{ParamType: seg[2]})
	case len(seg) == 2 && seg[1] == "query":
		return l.fill(config.ActionQuery, version, nil)
	case len(seg) == 3 && seg[1] == "query":
		return l.fill(config.ActionQueryMore, version, map[string]string{ParamLocator: seg[2]})
	case len(seg) == 2 && seg[1] == "search":
		return l.fill(config.ActionSearch, version, nil)
	}
	return "", false
}

// fill is the template of action's route with version and params, each
// checked to be a safe path segment.
func (l *Linker) fill(action, version string, params map[string]string) (string, bool) {
	t, ok := l.templates[action]
	if !ok {
		return "", false
	}
	out := strings.Replace(t, "{version}", version, 1)
	for name, value := range params {
		if !safeSegment(value) {
			return "", false
		}
		out = strings.Replace(out, "{"+name+"}", value, 1)
	}
	if strings.Contains(out, "{") {
		return "", false
	}
	return out, true
}

// safeSegment accepts letters, digits, '.', '_' and '-': type names,
// locators and versions.
func safeSegment(s string) bool {
	if s == "" || len(s) > 64<<10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Resources rewrites the resource map of an API version (name -> backend
// path) into the gateway paths of the resources the gateway serves,
// dropping the others, in the backend's order.
func (l *Linker) Resources(body []byte, version string) ([]byte, error) {
	out, err := l.appendPaths(nil, body, version)
	switch {
	case errors.Is(err, errNotObject):
		return nil, invalidAnswer("the resource map is not an object", err)
	case err != nil:
		return nil, invalidAnswer("the resource map is not JSON", err)
	}
	return out, nil
}
