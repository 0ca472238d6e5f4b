package workflow_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/workflow"
	"github.com/restgate/gateway/upstreams/workflow/restvar"
)

// Test credentials; the Doer adds them the way the shared client does.
const (
	testUser     = "rest-admin"
	testPassword = "s3cret"
)

// basicAuthDoer plays the shared client's part of adding the configured
// Basic credentials to every call.
type basicAuthDoer struct {
	user, password string
	client         *http.Client
}

func (d basicAuthDoer) Do(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.SetBasicAuth(d.user, d.password)
	return d.client.Do(req)
}

// current pins the current engine's version, for the tests of one exact
// request: the version is then not read.
func current() workflow.Options {
	v, err := restvar.ParseVersion(restvar.CurrentRelease)
	if err != nil {
		panic(err)
	}
	return workflow.Options{EngineVersion: v}
}

// newDoer's connections are its own: with http.DefaultTransport, another
// test's httptest.Server.Close closes the idle connections of every test,
// and a request of this one could take one as it is closed.
func newDoer() basicAuthDoer {
	return basicAuthDoer{user: testUser, password: testPassword,
		client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}
}

// expected is the one request a strict fake accepts.
type expected struct {
	method string
	// path is the escaped path below the service base.
	path  string
	query url.Values
	// body is the JSON body; "" means no body.
	body string
}

// canned is the fake's answer.
type canned struct {
	status int
	body   string
}

// strictEngine serves one answer under /flowable-rest/service and records,
// through t, every way the request differs from want. It counts calls so a
// test can assert that nothing was sent.
func strictEngine(t *testing.T, want expected, answer canned, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		assert.Equal(t, want.method, r.Method, "method")
		assert.Equal(t, "/flowable-rest/service"+want.path, r.URL.EscapedPath(), "path")
		wantQuery := want.query
		if wantQuery == nil {
			wantQuery = url.Values{}
		}
		assert.Equal(t, wantQuery, r.URL.Query(), "query")
		user, password, ok := r.BasicAuth()
		assert.True(t, ok, "basic auth header")
		assert.Equal(t, testUser, user)
		assert.Equal(t, testPassword, password)
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		raw, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		if want.body == "" {
			assert.Empty(t, raw, "body")
		} else {
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
			assert.JSONEq(t, want.body, string(raw), "body")
		}
		if answer.body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(answer.status)
		_, _ = io.WriteString(w, answer.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestBasicAuthDoerSendsHeader(t *testing.T) {
	t.Parallel()
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
	}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	resp, err := newDoer().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "Basic cmVzdC1hZG1pbjpzM2NyZXQ=", got)
	assert.Empty(t, req.Header.Get("Authorization"), "the caller's request is not modified")
}
