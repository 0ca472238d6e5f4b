package dataapi_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// strictFake answers 200 with body only to exactly the expected request,
// and 418 with a description of the mismatch otherwise.
func strictFake(t *testing.T, wantPath, wantRawQuery, body string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		got, _ := io.ReadAll(r.Body)
		var problems []string
		if r.Method != http.MethodGet {
			problems = append(problems, "method "+r.Method)
		}
		if r.URL.EscapedPath() != wantPath {
			problems = append(problems, "path "+r.URL.EscapedPath())
		}
		if r.URL.RawQuery != wantRawQuery {
			problems = append(problems, "query "+r.URL.RawQuery)
		}
		if r.Header.Get("Accept") != "application/json" {
			problems = append(problems, "accept "+r.Header.Get("Accept"))
		}
		if r.Header.Get("Authorization") != "" {
			problems = append(problems, "the adapter must not add credentials")
		}
		if len(got) != 0 {
			problems = append(problems, "a body")
		}
		if len(problems) > 0 {
			w.WriteHeader(http.StatusTeapot)
			_, _ = io.WriteString(w, `[{"errorCode":"FAKE_MISMATCH","message":"`+strings.Join(problems, ", ")+`"}]`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestClientRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		call     func(context.Context, *dataapi.Client) ([]byte, error)
		path     string
		rawQuery string
		basePath string
		answer   string
	}{
		{desc: "versions", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.Versions(ctx) },
			path: "/services/data", answer: `[{"label":"Winter '16","url":"/services/data/v35.0","version":"35.0"}]`},
		{desc: "resources of another version", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.Resources(ctx, "v34.0") },
			path: "/services/data/v34.0", answer: `{"sobjects":"/services/data/v34.0/sobjects"}`},
		{desc: "sobjects", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.SObjects(ctx) },
			path: "/services/data/v35.0/sobjects", answer: `{"encoding":"UTF-8","sobjects":[]}`},
		{desc: "sobject", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.SObject(ctx, "Account") },
			path: "/services/data/v35.0/sobjects/Account", answer: `{"objectDescribe":{},"recentItems":[]}`},
		{desc: "describe of a custom type", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.Describe(ctx, "Loan_App__c") },
			path: "/services/data/v35.0/sobjects/Loan_App__c/describe", answer: `{"name":"Loan_App__c","fields":[]}`},
		{desc: "query is escaped", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) {
			return c.Query(ctx, "SELECT Id FROM Account WHERE Name = 'A&B #1 100%'")
		}, path: "/services/data/v35.0/query", rawQuery: "q=SELECT+Id+FROM+Account+WHERE+Name+%3D+%27A%26B+%231+100%25%27",
			answer: `{"totalSize":0,"done":true,"records":[]}`},
		{desc: "query more", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) {
			return c.QueryMore(ctx, "01gD0000002HU6KIAW-2000")
		},
			path: "/services/data/v35.0/query/01gD0000002HU6KIAW-2000", answer: `{"totalSize":3000,"done":true,"records":[]}`},
		{desc: "search", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) {
			return c.Search(ctx, "FIND {Acme} RETURNING Account(Name)")
		}, path: "/services/data/v35.0/search", rawQuery: "q=FIND+%7BAcme%7D+RETURNING+Account%28Name%29",
			answer: `{"searchRecords":[]}`},
		{desc: "base URL with a path prefix", call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.SObjects(ctx) },
			basePath: "/gw/sfdc/", path: "/gw/sfdc/services/data/v35.0/sobjects", answer: `{"sobjects":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv, calls := strictFake(t, tt.path, tt.rawQuery, tt.answer)
			c, err := dataapi.New(srv.URL+tt.basePath, "v35.0", srv.Client())
			require.NoError(t, err)
			got, err := tt.call(context.Background(), c)
			require.NoError(t, err)
			assert.JSONEq(t, tt.answer, string(got))
			assert.Equal(t, int32(1), calls.Load())
		})
	}
}

func TestClientRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		call   func(context.Context, *dataapi.Client) ([]byte, error)
		status int
		code   string
	}{
		{desc: "type with a slash", status: 404, code: "NOT_FOUND",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) {
				return c.Describe(ctx, "Account/../../x")
			}},
		{desc: "type with a dot", status: 404, code: "NOT_FOUND",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.SObject(ctx, "..") }},
		{desc: "empty type", status: 404, code: "NOT_FOUND",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.SObject(ctx, "") }},
		{desc: "encoded slash in type", status: 404, code: "NOT_FOUND",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.Describe(ctx, "a%2Fb") }},
		{desc: "bad version", status: 404, code: "NOT_FOUND",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.Resources(ctx, "35.0") }},
		{desc: "bad locator", status: 400, code: "INVALID_QUERY_LOCATOR",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.QueryMore(ctx, "01g?q=x") }},
		{desc: "empty query", status: 400, code: "MALFORMED_QUERY",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.Query(ctx, "  ") }},
		{desc: "empty search", status: 400, code: "MALFORMED_SEARCH",
			call: func(ctx context.Context, c *dataapi.Client) ([]byte, error) { return c.Search(ctx, "") }},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv, calls := strictFake(t, "/never", "", `{}`)
			c, err := dataapi.New(srv.URL, "v35.0", srv.Client())
			require.NoError(t, err)
			_, err = tt.call(context.Background(), c)
			require.ErrorIs(t, err, dataapi.ErrInvalidArgument)
			ue := upstreams.AsError(err)
			require.NotNil(t, ue)
			assert.Equal(t, upstreams.KindRejected, ue.Kind)
			assert.Equal(t, tt.status, ue.Status)
			assert.Equal(t, tt.code, ue.Code)
			assert.Equal(t, int32(0), calls.Load())
		})
	}
}

func TestClientErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		status  int
		body    string
		kind    upstreams.Kind
		code    string
		message string
	}{
		{desc: "query rejected", status: 400, kind: upstreams.KindRejected, code: "MALFORMED_QUERY",
			body:    `[{"message":"unexpected token: FORM","errorCode":"MALFORMED_QUERY"}]`,
			message: "unexpected token: FORM"},
		{desc: "fields listed", status: 400, kind: upstreams.KindRejected, code: "INVALID_FIELD",
			body:    `[{"message":"No such column","errorCode":"INVALID_FIELD","fields":["Nme"]}]`,
			message: "No such column (fields: Nme)"},
		{desc: "session expired", status: 401, kind: upstreams.KindRejected, code: "INVALID_SESSION_ID",
			body:    `[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]`,
			message: "Session expired or invalid"},
		{desc: "key gateway fault", status: 401, kind: upstreams.KindRejected, code: "oauth.v2.InvalidApiKey",
			body:    `{"fault":{"faultstring":"Invalid ApiKey","detail":{"errorcode":"oauth.v2.InvalidApiKey"}}}`,
			message: "Invalid ApiKey"},
		{desc: "server error", status: 500, kind: upstreams.KindFailed, code: "UNKNOWN_EXCEPTION",
			body:    `[{"message":"An unexpected error occurred.","errorCode":"UNKNOWN_EXCEPTION"}]`,
			message: "An unexpected error occurred."},
		{desc: "unreadable body keeps the status", status: 503, kind: upstreams.KindFailed,
			body: `<html>maintenance</html>`, message: "Service Unavailable"},
		{desc: "empty body", status: 404, kind: upstreams.KindRejected, message: "Not Found"},
		{desc: "2xx that is not JSON", status: 200, kind: upstreams.KindInvalid, body: `{"records":[`,
			message: "answer is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			c, err := dataapi.New(srv.URL, "v35.0", srv.Client())
			require.NoError(t, err)
			_, err = c.Query(context.Background(), "SELECT Id FROM Account")
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "error %v", err)
			assert.Equal(t, "data", ue.Upstream)
			assert.Equal(t, tt.kind, ue.Kind)
			assert.Equal(t, tt.status, ue.Status)
			assert.Equal(t, tt.code, ue.Code)
			assert.Equal(t, tt.message, ue.Message)
			assert.False(t, errors.Is(err, dataapi.ErrInvalidArgument))
		})
	}
}

func TestClientTransportErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	url := srv.URL
	srv.Close()
	c, err := dataapi.New(url, "v35.0", http.DefaultClient)
	require.NoError(t, err)
	_, err = c.Versions(context.Background())
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, upstreams.KindFailed, ue.Kind)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Versions(ctx)
	ue = upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, upstreams.KindCanceled, ue.Kind)
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		base    string
		version string
		ok      bool
	}{
		{desc: "https with path", base: "https://gw.example.com/sfdc", version: "v35.0", ok: true},
		{desc: "three-digit version", base: "http://127.0.0.1:8080", version: "v100.0", ok: true},
		{desc: "version without v", base: "https://x", version: "35.0"},
		{desc: "version without minor", base: "https://x", version: "v35"},
		{desc: "version with letters", base: "https://x", version: "v3a.0"},
		{desc: "no scheme", base: "gw.example.com", version: "v35.0"},
		{desc: "ftp", base: "ftp://gw.example.com", version: "v35.0"},
		{desc: "query in base", base: "https://x/?a=b", version: "v35.0"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := dataapi.New(tt.base, tt.version, http.DefaultClient)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
	_, err := dataapi.New("https://x", "v35.0", nil)
	assert.Error(t, err, "nil Doer")
}
