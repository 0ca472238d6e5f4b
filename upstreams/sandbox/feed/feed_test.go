package feed

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	upfeed "github.com/restgate/gateway/upstreams/feed"
	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
)

func newServer(t testing.TB) *httptest.Server {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := New(db)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func listMessages(t testing.TB, srv *httptest.Server, query string) []message {
	resp, err := srv.Client().Get(srv.URL + "/sfdc/public/feed" + query)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var out []message
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return out
}

func TestThroughTheAdapter(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := upfeed.New(srv.URL, srv.Client())
	require.NoError(t, c.Post(context.Background(), "Ana", "first"))
	require.NoError(t, c.Post(context.Background(), "Bo", "second \"quoted\" ünïcode"))
	err := c.Post(context.Background(), "", "no name")
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, http.StatusBadRequest, ue.Status)
	assert.Equal(t, "JSON_PARSER_ERROR", ue.Code)

	got := listMessages(t, srv, "")
	require.Len(t, got, 2)
	assert.Equal(t, "Ana", got[0].Name)
	assert.Equal(t, "first", got[0].Message)
	assert.Equal(t, "second \"quoted\" ünïcode", got[1].Message)
	assert.NotEqual(t, got[0].ID, got[1].ID)
}

func TestPost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc        string
		contentType string
		body        string
		status      int
	}{
		{desc: "created", contentType: "application/json", body: `{"name": "n", "message": "m", "extra": 1}`, status: 201},
		{desc: "no content type", body: `{"name": "n", "message": "m"}`, status: 201},
		{desc: "charset", contentType: "application/json; charset=UTF-8", body: `{"name": "n", "message": "m"}`, status: 201},
		{desc: "not JSON", contentType: "application/json", body: `name=n`, status: 400},
		{desc: "array", contentType: "application/json", body: `[{"name": "n", "message": "m"}]`, status: 400},
		{desc: "missing message", contentType: "application/json", body: `{"name": "n"}`, status: 400},
		{desc: "blank name", contentType: "application/json", body: `{"name": " ", "message": "m"}`, status: 400},
		{desc: "message not a string", contentType: "application/json", body: `{"name": "n", "message": 5}`, status: 400},
		{desc: "two values", contentType: "application/json", body: `{"name": "n", "message": "m"} {}`, status: 400},
		{desc: "form body", contentType: "application/x-www-form-urlencoded", body: `name=n&message=m`, status: 415},
		{desc: "too large", contentType: "application/json", body: `{"name": "n", "message": "` + strings.Repeat("x", maxBody) + `"}`, status: 413},
	}
	srv := newServer(t)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/sfdc/public/feed", strings.NewReader(tt.body))
			require.NoError(t, err)
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, tt.status, resp.StatusCode, string(data))
			if tt.status == http.StatusCreated {
				var m message
				require.NoError(t, json.Unmarshal(data, &m))
				assert.Equal(t, "n", m.Name)
				assert.Equal(t, "m", m.Message)
				assert.True(t, strings.HasPrefix(m.ID, "0F7") && len(m.ID) == 18, m.ID)
				return
			}
			var errs []struct{ ErrorCode, Message string }
			require.NoError(t, json.Unmarshal(data, &errs), string(data))
			require.Len(t, errs, 1)
			assert.NotEmpty(t, errs[0].ErrorCode)
		})
	}
}

func TestListLimit(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := upfeed.New(srv.URL, srv.Client())
	for i := range 5 {
		require.NoError(t, c.Post(context.Background(), "n", "m"+strconv.Itoa(i)))
	}
	got := listMessages(t, srv, "?limit=2")
	require.Len(t, got, 2)
	assert.Equal(t, []string{"m3", "m4"}, []string{got[0].Message, got[1].Message}, "the newest, oldest first")
	assert.Empty(t, listMessages(t, newServer(t), ""), "an empty feed is an empty array")

	for _, bad := range []string{"0", "-1", "x", "1001"} {
		resp, err := srv.Client().Get(srv.URL + "/sfdc/public/feed?limit=" + bad)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, bad)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"name": "n", "message": "m"}`, `{"name": null}`, `[]`, `{"name": "n", "message": "m"} x`, `"s"`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := parse(raw)
		if err == nil {
			assert.NotEmpty(t, strings.TrimSpace(m.Name))
			assert.NotEmpty(t, strings.TrimSpace(m.Message))
		}
	})
}
