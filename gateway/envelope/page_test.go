package envelope

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		page Page
		want string
	}{
		{desc: "a middle page", page: Page{Start: 20, Size: 10, Total: 57, Next: "/v2/tasks?size=10&start=30"},
			want: `{"start":20,"size":10,"total":57,"next":"/v2/tasks?size=10&start=30"}`},
		{desc: "the last page has no next", page: Page{Start: 50, Size: 7, Total: 57},
			want: `{"start":50,"size":7,"total":57}`},
		{desc: "an unknown total is left out", page: Page{Size: 2000, Total: -1, Next: "/v2/contacts?cursor=01gD0000002HU6KAM-2000"},
			want: `{"start":0,"size":2000,"next":"/v2/contacts?cursor=01gD0000002HU6KAM-2000"}`},
		{desc: "an empty list", page: Page{Total: 0}, want: `{"start":0,"size":0,"total":0}`},
		{desc: "the next link is escaped as JSON", page: Page{Size: 1, Total: -1, Next: `/v2/x?q="a"&b=<c>`},
			want: `{"start":0,"size":1,"next":"/v2/x?q=\"a\"\u0026b=\u003cc\u003e"}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			out := AppendPage([]byte(`{"result":[]`), tt.page)
			out = append(out, '}')
			var env struct {
				Page json.RawMessage `json:"page"`
			}
			require.NoError(t, json.Unmarshal(out, &env), string(out))
			assert.JSONEq(t, tt.want, string(env.Page))
		})
	}
}
