package workflow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewrite(t *testing.T) {
	t.Parallel()
	toTask := func(id string) string { return path("/{version}/tasks/{taskId}", "v2", id) }
	tests := []struct {
		desc, rec, want string
		s               self
	}{
		{"url becomes the gateway's, the other links go, the order stays",
			`{"id":"8","url":"http://engine:8080/runtime/tasks/8","executionUrl":"http://engine/x","name":"a","processDefinitionUrl":null}`,
			`{"id":"8","url":"/v2/tasks/8","name":"a"}`, toTask},
		{"url after the id is found too", `{"url":"http://e/1","id":"a b/c"}`, `{"url":"/v2/tasks/a%20b%2Fc","id":"a b/c"}`, toTask},
		{"no route: the url goes", `{"id":"8","url":"http://e/8","deploymentUrl":"http://e/d","resource":"http://e/r","diagramResource":null}`,
			`{"id":"8"}`, none},
		{"numbers keep their text", `{"id":"8","priority":50,"x":1.10,"big":12345678901234567890}`,
			`{"id":"8","priority":50,"x":1.10,"big":12345678901234567890}`, none},
		{"a variable's valueUrl goes, its value stays whole",
			`{"id":"8","variables":[{"name":"p","type":"json","value":{"url":"http://mine","homeUrl":"x"},"scope":"global"},` +
				`{"name":"b","type":"serializable","value":null,"valueUrl":"http://e/runtime/tasks/8/variables/b/data"}]}`,
			`{"id":"8","variables":[{"name":"p","type":"json","value":{"url":"http://mine","homeUrl":"x"},"scope":"global"},` +
				`{"name":"b","type":"serializable","value":null}]}`, none},
	}
	for _, tt := range tests {
		got, err := rewrite([]byte(tt.rec), tt.s)
		require.NoError(t, err, tt.desc)
		assert.Equal(t, tt.want, string(got), tt.desc)
	}
	_, err := rewrite([]byte(`[1]`), none)
	assert.Error(t, err)
	assert.Equal(t, "", path("", "v1", "8"))
	assert.Equal(t, "/v1/users/miss%20piggy", path("/{version}/users/{username}", "v1", "miss piggy"))
}

// FuzzRewrite: any JSON object comes out as a JSON object with no link of
// the engine's at its top level, its other members unchanged.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		`{"id":"8","url":"http://e/8","variables":[{"name":"a","valueUrl":"u","value":1}]}`,
		`{"id":8,"url":null}`, `{"variables":null}`, `{"variables":[1,"x",{}]}`, `{}`, `{"a\u0075rl":"x"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rec string) {
		var in map[string]json.RawMessage
		if json.Unmarshal([]byte(rec), &in) != nil || in == nil {
			return
		}
		out, err := rewrite([]byte(rec), func(id string) string { return path("/{version}/tasks/{taskId}", "v1", id) })
		if err != nil {
			return // duplicate keys and the like: refused, never mangled
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("output %s is not an object: %v", out, err)
		}
		for k, v := range got {
			if engineLink(k) {
				t.Fatalf("link %s left in %s", k, out)
			}
			if k == "url" && !strings.HasPrefix(string(v), `"/v1/tasks/`) {
				t.Fatalf("url %s is not the gateway's", v)
			}
		}
		for k := range in {
			if k != "url" && !engineLink(k) && k != "variables" && got[k] == nil {
				t.Fatalf("member %s lost", k)
			}
		}
	})
}
