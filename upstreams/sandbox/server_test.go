package sandbox

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

const batchPath = "/services/data/v35.0/connect/communities/0DBxx0000004CAe/chatter/feed-elements/batch"

func start(t *testing.T, dir string) *Server {
	t.Helper()
	s, err := Start(dir, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return s
}

func stop(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Close(ctx))
}

// call sends one request on a transport of its own (another test's server
// Close shuts http.DefaultTransport's idle connections) and returns the
// status and body.
func call(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(raw)
}

func contractURL(t *testing.T, s *Server, name string) string {
	t.Helper()
	name, flavour, _ := strings.Cut(name, ":")
	u, err := s.URL(name, flavour)
	require.NoError(t, err)
	return u
}

func TestStartServesEveryContract(t *testing.T) {
	t.Parallel()
	s := start(t, t.TempDir())
	t.Cleanup(func() { stop(t, s) })
	tests := []struct {
		desc, contract, method, path string
		status                       int
		want                         string
	}{
		{desc: "accounts", contract: "accounts", method: http.MethodGet, path: "/api/v1/account/?limit=1", status: 200, want: `"Name":"Burlington Textiles Corp of America"`},
		{desc: "the original account controller", contract: "accounts:original", method: http.MethodGet, path: "/api/v1/account/?limit=1",
			status: 200, want: `[{"Name":"Burlington Textiles Corp of America"},{"Name":`},
		{desc: "workflow", contract: "workflow", method: http.MethodGet, path: "/repository/process-definitions", status: 200, want: `"key":"loanProcess"`},
		{desc: "the data API wants a session", contract: "data", method: http.MethodGet, path: "/services/data/v35.0/query?q=SELECT+Name+FROM+Contact+LIMIT+1", status: 401, want: `INVALID_SESSION_ID`},
		{desc: "the data host carries the batch upload", contract: "data", method: http.MethodPost, path: batchPath, status: 401, want: "INVALID_SESSION_ID"},
		{desc: "files", contract: "files", method: http.MethodPost, path: batchPath, status: 401, want: "INVALID_SESSION_ID"},
		{desc: "feed", contract: "feed", method: http.MethodGet, path: "/sfdc/public/feed", status: 200, want: "[]"},
		{desc: "a path of another contract", contract: "feed", method: http.MethodGet, path: "/api/v1/account/", status: 404},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			status, body := call(t, tt.method, contractURL(t, s, tt.contract)+tt.path, "")
			assert.Equal(t, tt.status, status, body)
			assert.Contains(t, body, tt.want)
		})
	}
}

func TestURLOfAnUnknownContract(t *testing.T) {
	t.Parallel()
	s := start(t, t.TempDir())
	t.Cleanup(func() { stop(t, s) })
	_, err := s.URL("billing", "")
	assert.EqualError(t, err, `no sandbox for upstream "billing" (sandbox serves accounts, workflow, data, files, feed)`)
	_, err = s.URL("accounts", "orignal")
	assert.EqualError(t, err, `no sandbox flavour "orignal" for upstream "accounts" (its flavours: original)`)
	_, err = s.URL("feed", "original")
	assert.EqualError(t, err, `no sandbox flavour "original" for upstream "feed" (its flavours: none)`)
}

// TestStateSurvivesARestartAndResetsWithTheFile holds what the
// documentation tells an operator: the sandbox keeps its state in
// sandbox.db across restarts, a clean stop leaves no other SQLite file
// beside it, and deleting it brings back the seed.
func TestStateSurvivesARestartAndResetsWithTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	feedCount := func(s *Server) int {
		status, body := call(t, http.MethodGet, contractURL(t, s, "feed")+"/sfdc/public/feed", "")
		require.Equal(t, http.StatusOK, status, body)
		var msgs []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(body), &msgs))
		return len(msgs)
	}

	s := start(t, dir)
	status, body := call(t, http.MethodPost, contractURL(t, s, "feed")+"/sfdc/public/feed", `{"name":"Ana","message":"kept"}`)
	require.Equal(t, http.StatusCreated, status, body)
	stop(t, s)

	s = start(t, dir)
	assert.Equal(t, 1, feedCount(s), "the message survives a restart")
	stop(t, s)
	left, err := filepath.Glob(filepath.Join(dir, sandboxdb.File+"*"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, sandboxdb.File)}, left, "a clean stop leaves only the database file")

	require.NoError(t, os.Remove(filepath.Join(dir, sandboxdb.File)))
	s = start(t, dir)
	defer stop(t, s)
	assert.Equal(t, 0, feedCount(s), "deleting the file resets the sandbox")
	status, body = call(t, http.MethodGet, contractURL(t, s, "accounts")+"/api/v1/account/", "")
	require.Equal(t, http.StatusOK, status, body)
	var accounts []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(body), &accounts))
	assert.Len(t, accounts, 36, "the accounts are seeded again")
}

func TestIsConnectPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want bool
	}{
		{path: batchPath, want: true},
		{path: "/services/data/v35.0/connect/", want: true},
		{path: "/services/data/v35.0/query", want: false},
		{path: "/services/data/v35.0/connect", want: false},
		{path: "/services/other/v35.0/connect/x", want: false},
		{path: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, isConnectPath(tt.path))
		})
	}
}

func TestOrgSessionsLimitsAndVersions(t *testing.T) {
	t.Parallel()
	s, err := StartWith(t.TempDir(), slog.New(slog.DiscardHandler), Options{Org: sfdc.OrgOptions{VersionFloor: 36}})
	require.NoError(t, err)
	t.Cleanup(func() { stop(t, s) })
	do := func(method, url, token, body string) (int, string) {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{"data", "files"} {
		base := contractURL(t, s, host)
		status, body := do(http.MethodPost, base+"/services/oauth2/token", "", "grant_type=client_credentials&client_id=c&client_secret=s")
		require.Equal(t, http.StatusOK, status, body)
		var tok struct {
			AccessToken string `json:"access_token"`
			InstanceURL string `json:"instance_url"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &tok))
		assert.True(t, strings.HasPrefix(base, tok.InstanceURL), "instance_url is this host")
		query := base + "/services/data/v62.0/query?q=SELECT+Name+FROM+Contact+LIMIT+1"
		status, body = do(http.MethodGet, query, tok.AccessToken, "")
		assert.Equal(t, http.StatusOK, status, body)
		status, body = do(http.MethodGet, base+"/services/data/v35.0/sobjects", tok.AccessToken, "")
		assert.Equal(t, http.StatusGone, status, "below the floor: %s", body)
		s.Org().LimitNext(1)
		status, body = do(http.MethodGet, query, sfdc.DefaultStaticToken, "")
		assert.Equal(t, http.StatusForbidden, status)
		assert.Contains(t, body, "REQUEST_LIMIT_EXCEEDED")
		s.Org().Expire()
		status, body = do(http.MethodGet, query, tok.AccessToken, "")
		assert.Equal(t, http.StatusUnauthorized, status)
		assert.JSONEq(t, `[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]`, body)
		status, _ = do(http.MethodGet, query, sfdc.DefaultStaticToken, "")
		assert.Equal(t, http.StatusOK, status, "the static token never expires")
	}
}
