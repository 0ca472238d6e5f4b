package call

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
)

func TestSuccessAndItsFailures(t *testing.T) {
	t.Parallel()
	km, err := mapping.NewKeyMap(map[string]string{"Id": "id", "Name": "name"})
	require.NoError(t, err)
	opts := &routes.VersionOptions{MapKeys: true, DropNulls: true, KeyMap: km, Select: mapping.NewFieldSet("Id")}
	tests := []struct {
		desc       string
		res        Result
		maxOutput  int
		status     int
		id         string
		result     string
		mapKeyFlag bool
		rejected   bool // the owner learns that the backend's answer is at fault
	}{
		{desc: "mapped, selected, nulls dropped", res: Result{JSON: []byte(`[{"Id":"1","Name":"A","X":null}]`)},
			status: 200, result: `[{"id":"1"}]`, mapKeyFlag: true},
		{desc: "fixed shapes skip map and selection", res: Result{JSON: []byte(`{"deleted":3,"Name":null}`), Form: ExposedNames, Status: 201},
			status: 201, result: `{"deleted":3}`, mapKeyFlag: true},
		{desc: "nil result is the empty string", res: Result{}, status: 200, result: `""`, mapKeyFlag: true},
		{desc: "too large is SERIALIZATION_FAILED", res: Result{JSON: []byte(`["` + strings.Repeat("a", 100) + `"]`)},
			maxOutput: 50, status: 500, id: envelope.SerializationFailed},
		{desc: "backend JSON that is not JSON is a failed callout", res: Result{JSON: []byte(`[{"Id":`)},
			status: 502, id: envelope.CalloutFailed, rejected: true},
		{desc: "a page the backend's contract does not allow", res: Result{JSON: []byte(`[{"Id":"1"},{"Id":"2"}]`),
			Paging: func(int) (*envelope.Page, error) {
				return nil, Upstream(&upstreams.Error{Upstream: "a", Kind: upstreams.KindInvalid, Message: "2 for limit 1"}, "X")
			}},
			status: 502, id: envelope.CalloutFailed, rejected: true},
		{desc: "a page the client asked wrongly for", res: Result{JSON: []byte(`[{"Id":"1"}]`),
			Paging: func(int) (*envelope.Page, error) { return nil, envelope.InvalidParameter("offset", "too far") }},
			status: 400, id: envelope.ParameterInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			w := NewWriter(WriterConfig{Catalog: envelope.NewCatalog(), MaxOutput: tt.maxOutput})
			rec := httptest.NewRecorder()
			c := &Call{Start: time.Now(), Options: opts}
			owner := &scribbler{json: tt.res.JSON}
			tt.res.Owner = owner
			w.Success(rec, httptest.NewRequest("GET", "/v1/x", nil), c, tt.res)
			assert.Equal(t, 1, owner.released, "the result's owner is released once, after the answer is written")
			assert.Equal(t, tt.rejected, owner.rejected != nil, "rejected: %v", owner.rejected)
			require.Equal(t, tt.status, rec.Code, rec.Body.String())
			assert.Equal(t, tt.status, c.Status)
			assert.Equal(t, tt.id, c.CodeID)
			var env map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env))
			if tt.id == "" {
				assert.JSONEq(t, tt.result, string(env["result"]))
				assert.Equal(t, "true", string(env["mapKeysFlag"]))
			}
		})
	}
}

// TestFormFlags checks the envelope's flags each Form writes, on a version
// whose key map is off.
func TestFormFlags(t *testing.T) {
	t.Parallel()
	km, err := mapping.NewKeyMap(map[string]string{"Name": "name"})
	require.NoError(t, err)
	opts := &routes.VersionOptions{DropNulls: true, KeyMap: km}
	record := []byte(`{"Name":"A","X":null}`)
	tests := []struct {
		desc string
		res  Result
		want string
	}{
		{desc: "internal names, the map off", res: Result{JSON: record},
			want: `{"result":{"Name":"A"},"mapKeysFlag":false,"serializeNulls":true}`},
		{desc: "exposed names", res: Result{JSON: record, Form: ExposedNames},
			want: `{"result":{"Name":"A"},"mapKeysFlag":false,"serializeNulls":true}`},
		{desc: "mapped by the handler", res: Result{JSON: record, Form: MappedByHandler},
			want: `{"result":{"Name":"A"},"mapKeysFlag":true,"serializeNulls":true}`},
		{desc: "a published key map", res: Result{JSON: record, Form: ExposedNames, MapKeys: []byte(`{"Name":"name"}`)},
			want: `{"result":{"Name":"A"},"mapKeys":{"Name":"name"},"mapKeysFlag":true,"serializeNulls":true}`},
		{desc: "a listing", res: Result{JSON: record, Form: Listing}, want: `{"result":{"Name":"A"}}`},
		{desc: "a page of a longer list", res: Result{JSON: []byte(`[{"Name":"A"}]`), Page: &envelope.Page{Start: 3, Size: 1, Total: 9, Next: "/v2/x?start=4"}},
			want: `{"result":[{"Name":"A"}],"page":{"start":3,"size":1,"total":9,"next":"/v2/x?start=4"},"mapKeysFlag":false,"serializeNulls":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			w := NewWriter(WriterConfig{Catalog: envelope.NewCatalog()})
			rec := httptest.NewRecorder()
			w.Success(rec, httptest.NewRequest("GET", "/v1/x", nil), &Call{Start: time.Now(), Options: opts}, tt.res)
			var env map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env))
			for _, meta := range []string{"timeStamp", "totalTime", "userId"} {
				delete(env, meta)
			}
			got, err := json.Marshal(env)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

// scribbler owns a result's bytes and overwrites them when released, as a
// reused pooled buffer would be: an answer written after the release would
// show it.
type scribbler struct {
	json     []byte
	released int
	rejected error
}

// Reject records the writer's verdict; it must come before the release.
func (s *scribbler) Reject(err error) {
	if s.released == 0 {
		s.rejected = err
	}
}

func (s *scribbler) Release() {
	s.released++
	for i := range s.json {
		s.json[i] = '#'
	}
}

func TestSystemMessageAlwaysLogged(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	w := NewWriter(WriterConfig{Catalog: envelope.NewCatalog(), Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	rec := httptest.NewRecorder()
	c := &Call{Start: time.Now(), TraceID: "t1", Body: []byte(`{"a":1}`)}
	w.Error(rec, httptest.NewRequest("POST", "/v1/nothing", nil), c, envelope.New(envelope.URLInvalid))
	assert.Equal(t, 404, rec.Code)
	assert.NotContains(t, rec.Body.String(), "formattedSystemMessage", "hidden from the client by default")
	assert.Contains(t, logs.String(), `Method: HTTPPOST | Path: /v1/nothing | Body: {\"a\":1}`, "but always in the log")
	assert.Contains(t, logs.String(), `"level":"INFO"`)
}

func TestAnswerHeaders(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0)
	w := NewWriter(WriterConfig{Catalog: envelope.NewCatalog(), Now: func() time.Time { return start.Add(1234567 * time.Microsecond) }})
	tests := []struct {
		desc  string
		write func(rw http.ResponseWriter, c *Call)
	}{
		{desc: "success", write: func(rw http.ResponseWriter, c *Call) {
			w.Success(rw, httptest.NewRequest("GET", "/v1/x", nil), c, Result{JSON: []byte(`{"a":1}`)})
		}},
		{desc: "document", write: func(rw http.ResponseWriter, c *Call) {
			w.Success(rw, httptest.NewRequest("GET", "/v1/x", nil), c, Result{JSON: []byte(`{"a":1}`), Form: Document})
		}},
		{desc: "error", write: func(rw http.ResponseWriter, c *Call) {
			w.Error(rw, httptest.NewRequest("GET", "/v1/x", nil), c, envelope.New(envelope.URLInvalid))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c := &Call{Start: start}
			c.Upstream.Timing.Add(234 * time.Millisecond)
			rec := httptest.NewRecorder()
			tt.write(rec, c)
			h := rec.Result().Header
			assert.Equal(t, []string{strconv.Itoa(rec.Body.Len())}, h.Values("Content-Length"))
			assert.Equal(t, []string{"gateway;dur=1000.567, upstream;dur=234.000, total;dur=1234.567"}, h.Values("Server-Timing"))
			assert.Equal(t, []string{"application/json; charset=utf-8"}, h.Values("Content-Type"))
			assert.Equal(t, []string{"nosniff"}, h.Values("X-Content-Type-Options"))
		})
	}
}

func TestErrorWithHeaders(t *testing.T) {
	t.Parallel()
	w := NewWriter(WriterConfig{Catalog: envelope.NewCatalog()})
	rec := httptest.NewRecorder()
	err := &HeadedError{Err: envelope.New(envelope.URLInvalid), Header: http.Header{"Cache-Status": {"restgate; hit; ttl=9"}, "Age": {"1"}}}
	w.Error(rec, httptest.NewRequest("GET", "/v1/nothing", nil), &Call{Start: time.Now(), Identity: Identity{UserID: "u1"}}, err)
	assert.Equal(t, 404, rec.Code, "the wrapped error's status")
	assert.Equal(t, "restgate; hit; ttl=9", rec.Header().Get("Cache-Status"))
	assert.Equal(t, "1", rec.Header().Get("Age"))
	var env map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env))
	assert.Equal(t, "u1", env["userId"], "the envelope is the request's own")
	assert.Equal(t, "URL_INVALID", env["responseCode"].(map[string]any)["id"])
}
