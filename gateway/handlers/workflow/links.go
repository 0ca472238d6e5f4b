package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
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

// rewriteList rewrites every record of a JSON array.
func rewriteList(list []byte, s self) ([]byte, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(list))
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		rec, err := rewrite(it, s)
		if err != nil {
			return nil, err
		}
		out = append(out, rec...)
	}
	return append(out, ']'), nil
}

// member is one member of a JSON object, its value as it came.
type member struct {
	key   string
	value json.RawMessage
}

// rewrite rewrites one engine record: url becomes s(id) or goes, every
// other link of the record goes, and so does each variable's valueUrl. The
// members' order and values are kept byte for byte; a variable's value is
// the caller's data and is not looked into.
func rewrite(rec []byte, s self) ([]byte, error) {
	members, err := objectMembers(rec)
	if err != nil {
		return nil, err
	}
	var id string
	for _, m := range members {
		if m.key == "id" {
			_ = json.Unmarshal(m.value, &id)
		}
	}
	out := make([]byte, 0, len(rec))
	out = append(out, '{')
	first := true
	put := func(key string, value []byte) {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(mapping.AppendString(out, key), ':')
		out = append(out, value...)
	}
	for _, m := range members {
		switch {
		case m.key == "url":
			if p := s(id); p != "" {
				put(m.key, mapping.AppendString(nil, p))
			}
		case engineLink(m.key):
		case m.key == "variables":
			vars, err := withoutValueURLs(m.value)
			if err != nil {
				return nil, err
			}
			put(m.key, vars)
		default:
			put(m.key, m.value)
		}
	}
	return append(out, '}'), nil
}

// engineLink reports whether a member of an engine record is a link to the
// engine: RestResponseFactory names them ...Url, resource and
// diagramResource.
func engineLink(key string) bool {
	return strings.HasSuffix(key, "Url") || key == "resource" || key == "diagramResource"
}

// withoutValueURLs removes valueUrl from each variable of an array; a null
// or anything but an array passes as it is.
func withoutValueURLs(raw json.RawMessage) ([]byte, error) {
	var vars []json.RawMessage
	if json.Unmarshal(raw, &vars) != nil {
		return raw, nil
	}
	out := []byte{'['}
	for i, v := range vars {
		if i > 0 {
			out = append(out, ',')
		}
		members, err := objectMembers(v)
		if err != nil {
			out = append(out, v...)
			continue
		}
		out = append(out, '{')
		first := true
		for _, m := range members {
			if m.key == "valueUrl" {
				continue
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(mapping.AppendString(out, m.key), ':')
			out = append(out, m.value...)
		}
		out = append(out, '}')
	}
	return append(out, ']'), nil
}

var errNotObject = errors.New("engine record is not a JSON object")

// objectMembers splits a JSON object into its members, values untouched.
func objectMembers(rec []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(rec))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		members = append(members, member{key, value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return members, nil
}
