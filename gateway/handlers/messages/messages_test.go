package messages_test

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
	sandboxfeed "github.com/restgate/gateway/upstreams/sandbox/feed"
)

// strictFeed answers 201 only to exactly the request the feed contract
// describes, carrying want; anything else is 418 with the mismatch.
func strictFeed(t *testing.T, wantName, wantMessage string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var problems []string
		if r.Method != http.MethodPost || r.URL.Path != "/sfdc/public/feed" || r.URL.RawQuery != "" {
			problems = append(problems, "request "+r.Method+" "+r.URL.String())
		}
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Accept") != "application/json" {
			problems = append(problems, "headers")
		}
		raw, _ := io.ReadAll(r.Body)
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil || len(got) != 2 || got["name"] != wantName || got["message"] != wantMessage {
			problems = append(problems, "body "+string(raw))
		}
		if len(problems) > 0 {
			w.WriteHeader(http.StatusTeapot)
			_, _ = io.WriteString(w, `[{"errorCode":"FAKE_MISMATCH","message":"mismatch"}]`)
			t.Errorf("feed got: %s", strings.Join(problems, "; "))
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestPostForwards(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, body, name, message string
	}{
		{desc: "plain", body: `{"name":"Ann","message":"Hello"}`, name: "Ann", message: "Hello"},
		{desc: "members in any order", body: `{"message":"Hi there","name":"Bob"}`, name: "Bob", message: "Hi there"},
		{desc: "unicode at the limits", body: `{"name":"` + strings.Repeat("é", 255) + `","message":"` + strings.Repeat("✓", 10000) + `"}`,
			name: strings.Repeat("é", 255), message: strings.Repeat("✓", 10000)},
		{desc: "escapes are decoded", body: `{"name":"A\u0026B","message":"line1\nline2"}`, name: "A&B", message: "line1\nline2"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv, calls := strictFeed(t, tt.name, tt.message)
			a := post(t, newGateway(t, srv.URL, handlertest.Client(t)), "/v1/messages", "application/json", tt.body)
			assert.Equal(t, http.StatusOK, a.Status)
			assert.JSONEq(t, `""`, string(a.Result))
			assert.Equal(t, int32(1), calls.Load())
		})
	}
}

func TestPostRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, body, code, client string
	}{
		{desc: "no body", body: ``, code: "JSON_SERIALIZATION_FAILED", client: "a JSON body is required"},
		{desc: "not JSON", body: `{"name":`, code: "JSON_SERIALIZATION_FAILED", client: "not valid JSON"},
		{desc: "array", body: `[{"name":"a","message":"b"}]`, code: "JSON_SERIALIZATION_FAILED", client: "must be a JSON object"},
		{desc: "unknown member", body: `{"name":"a","message":"b","to":"x"}`, code: "JSON_SERIALIZATION_FAILED", client: `unknown member "to"`},
		{desc: "member name in another case", body: `{"NAME":"a","message":"b"}`, code: "JSON_SERIALIZATION_FAILED", client: `unknown member "NAME"`},
		{desc: "member given twice", body: `{"name":"a","message":"b","name":"c"}`, code: "JSON_SERIALIZATION_FAILED", client: `member "name" given twice`},
		{desc: "number name", body: `{"name":1,"message":"b"}`, code: "JSON_SERIALIZATION_FAILED", client: `"name" must be a string`},
		{desc: "second object", body: `{"name":"a","message":"b"} {}`, code: "JSON_SERIALIZATION_FAILED", client: "not valid JSON (at byte 27)"},
		{desc: "missing name", body: `{"message":"b"}`, code: "PARAMETER_INVALID", client: "Invalid parameter name: required"},
		{desc: "null message", body: `{"name":"a","message":null}`, code: "PARAMETER_INVALID", client: "Invalid parameter message: required"},
		{desc: "blank message", body: `{"name":"a","message":" \t"}`, code: "PARAMETER_INVALID", client: "Invalid parameter message: must not be blank"},
		{desc: "name too long", body: `{"name":"` + strings.Repeat("x", 256) + `","message":"b"}`, code: "PARAMETER_INVALID",
			client: "Invalid parameter name: longer than 255 characters"},
		{desc: "message too long", body: `{"name":"a","message":"` + strings.Repeat("é", 10001) + `"}`, code: "PARAMETER_INVALID",
			client: "Invalid parameter message: longer than 10000 characters"},
	}
	srv, calls := strictFeed(t, "never", "never")
	h := newGateway(t, srv.URL, handlertest.Client(t))
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			a := post(t, h, "/v2/messages", "application/json", tt.body)
			assert.Equal(t, http.StatusBadRequest, a.Status)
			assert.Equal(t, tt.code, a.ResponseCode.ID)
			assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.client)
		})
	}
	t.Cleanup(func() { assert.Equal(t, int32(0), calls.Load(), "nothing reaches the feed") })
}

func TestPostUpstreamErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		status int
		body   string
		want   int
		code   string
		system string
	}{
		{desc: "refused", status: 400, body: `[{"errorCode":"INVALID_INPUT","message":"name is reserved"}]`,
			want: 400, code: "SOBJECT_OPERATION_FAILED", system: "name is reserved"},
		{desc: "forbidden", status: 403, body: `{"message":"feed closed"}`, want: 403, code: "SOBJECT_OPERATION_FAILED", system: "feed closed"},
		{desc: "server error", status: 500, body: `oops`, want: 502, code: "CALLOUT_FAILED", system: "oops"},
		{desc: "unavailable", status: 503, want: 502, code: "CALLOUT_FAILED", system: "Service Unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			a := post(t, newGateway(t, srv.URL, handlertest.Client(t)), "/v1/messages", "application/json", `{"name":"a","message":"b"}`)
			assert.Equal(t, tt.want, a.Status)
			assert.Equal(t, tt.code, a.ResponseCode.ID)
			assert.Contains(t, a.ResponseCode.FormattedSystemMessage, tt.system)
			if tt.want < 500 {
				assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.system, "a rejection's reason reaches the client")
			} else {
				assert.NotContains(t, a.ResponseCode.FormattedClientMessage, tt.system, "a failure's text stays in the system message")
			}
		})
	}
}

func TestPostUnreachableFeed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	a := post(t, newGateway(t, url, handlertest.Client(t)), "/v1/messages", "application/json", `{"name":"a","message":"b"}`)
	assert.Equal(t, http.StatusBadGateway, a.Status)
	assert.Equal(t, "CALLOUT_FAILED", a.ResponseCode.ID)
}

func TestMethodsOtherThanPost(t *testing.T) {
	t.Parallel()
	srv, _ := strictFeed(t, "never", "never")
	req := httptest.NewRequest(http.MethodGet, "/v1/messages", nil)
	rec := httptest.NewRecorder()
	newGateway(t, srv.URL, handlertest.Client(t)).ServeHTTP(rec, req)
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "OPTIONS, POST", rec.Header().Get("Allow"))
}

func TestSandboxStoresMessages(t *testing.T) {
	t.Parallel()
	var db *sql.DB
	url, _ := handlertest.Sandbox(t, t.TempDir(), func(d *sql.DB) (http.Handler, error) {
		db = d
		return sandboxfeed.New(d)
	})
	gw := newGateway(t, url, handlertest.Client(t))

	for _, m := range []string{"first", "second ✓"} {
		a := post(t, gw, "/v1/messages", "application/json", `{"name":"Ann","message":"`+m+`"}`)
		require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	}
	assert.Equal(t, []string{"first", "second ✓"}, storedMessages(t, db))
}

func storedMessages(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT message FROM feed_messages WHERE name = 'Ann' ORDER BY seq`)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var m string
		require.NoError(t, rows.Scan(&m))
		out = append(out, m)
	}
	require.NoError(t, rows.Err())
	return out
}
