package workflow

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams/jsonspan"
)

// links turns the engine's links into the gateway's. The engine writes
// absolute URLs of its own host into its records (url, processDefinitionUrl,
// executionUrl, processInstanceUrl, deploymentUrl, resource, a variable's
// valueUrl ...); clients must see neither the host nor paths they cannot
// call. A record's url becomes the gateway path that serves the record
// when the route table has one (a task, a user), in the request's version;
// every other link is removed.
type links struct {
	// task and user are the templates of the routes of actions task and
	// user, by version.
	task, user map[string]string
}

func newLinks(t *routes.Table) links {
	l := links{task: map[string]string{}, user: map[string]string{}}
	if t == nil {
		return l
	}
	for _, r := range t.Routes {
		if r.Spec.Kind != config.KindWorkflow {
			continue
		}
		var into map[string]string
		switch r.Spec.Action {
		case config.ActionTask:
			into = l.task
		case config.ActionUser:
			into = l.user
		default:
			continue
		}
		for v := range r.Versions {
			if _, taken := into[v]; !taken {
				into[v] = r.Template
			}
		}
	}
	return l
}

// path fills template's {version} and its one other parameter with id;
// "" when there is no template.
func path(template, version, id string) string {
	if template == "" || id == "" {
		return ""
	}
	out := strings.Replace(template, "{version}", version, 1)
	if i := strings.IndexByte(out, '{'); i >= 0 {
		if j := strings.IndexByte(out[i:], '}'); j > 0 {
			out = out[:i] + url.PathEscape(id) + out[i+j+1:]
		}
	}
	return out
}

// self says what a record's url becomes: the gateway path of the record of
// id, or "" to remove it.
type self func(id string) string

func (l links) taskPath(version string) self {
	return func(id string) string { return path(l.task[version], version, id) }
}

func (l links) userPath(version string) self {
	return func(id string) string { return path(l.user[version], version, id) }
}

// none removes a record's url.
func none(string) string { return "" }

var errNotRecords = errors.New("engine answer is not a JSON object, or a JSON array of them")

// rewriteList rewrites every record of a JSON array.
func rewriteList(list []byte, s self) ([]byte, error) {
	out := make([]byte, 0, len(list))
	out = append(out, '[')
	var err error
	ok := jsonspan.Array(list, func(rec []byte) {
		if err != nil {
			return
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out, err = appendRewritten(out, rec, s)
	})
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNotRecords
	}
	return append(out, ']'), nil
}

// rewrite rewrites one engine record: url becomes s(id) or goes, every
// other link of the record goes, and so does each variable's valueUrl. The
// members' order and bytes are kept; a variable's value is the caller's
// data and is not looked into.
func rewrite(rec []byte, s self) ([]byte, error) {
	return appendRewritten(make([]byte, 0, len(rec)), rec, s)
}

func appendRewritten(out, rec []byte, s self) ([]byte, error) {
	var id string
	if !jsonspan.Object(rec, func(key, value []byte) {
		if k, _ := memberName(key); k == "id" {
			_ = json.Unmarshal(value, &id)
		}
	}) {
		return nil, errNotRecords
	}
	out = append(out, '{')
	first := true
	put := func(key, value []byte) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(append(append(out, key...), ':'), value...)
	}
	var err error
	jsonspan.Object(rec, func(key, value []byte) {
		name, _ := memberName(key)
		switch {
		case name == "url":
			if p := s(id); p != "" {
				put(key, mapping.AppendString(nil, p))
			}
		case engineLink(name):
		case name == "variables":
			vars, verr := withoutValueURLs(value)
			if verr != nil {
				err = verr
				return
			}
			put(key, vars)
		default:
			put(key, value)
		}
	})
	if err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// memberName is a member's name as its key spells it.
func memberName(key []byte) (string, bool) {
	if name, ok := jsonspan.Key(key); ok {
		return name, true
	}
	var name string
	err := json.Unmarshal(key, &name)
	return name, err == nil
}

// engineLink reports whether a member of an engine record is a link to the
// engine: RestResponseFactory names them ...Url, resource and
// diagramResource.
func engineLink(key string) bool {
	return strings.HasSuffix(key, "Url") || key == "resource" || key == "diagramResource"
}

// withoutValueURLs removes valueUrl from each variable of an array; a null
// or anything but an array of objects passes as it is.
func withoutValueURLs(vars []byte) ([]byte, error) {
	if len(vars) == 0 || vars[0] != '[' {
		return vars, nil
	}
	out := make([]byte, 0, len(vars))
	out = append(out, '[')
	ok := jsonspan.Array(vars, func(v []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		if len(v) == 0 || v[0] != '{' {
			out = append(out, v...)
			return
		}
		out = append(out, '{')
		first := true
		jsonspan.Object(v, func(key, value []byte) {
			if name, _ := memberName(key); name == "valueUrl" {
				return
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(append(append(out, key...), ':'), value...)
		})
		out = append(out, '}')
	})
	if !ok {
		return nil, errNotRecords
	}
	return append(out, ']'), nil
}
