package app

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/upstreams/sandbox"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// org is the shipped config built against the sandbox as a real org
// behaves: sessions that expire, request limits, API versions.
type org struct {
	handler http.Handler
	sb      *sandbox.Server
	logs    *syncBuffer
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newOrg starts the sandbox with opts, then builds the shipped config with
// env, where ${DATA} in a value is the sandbox's data base URL.
func newOrg(t *testing.T, opts sandbox.Options, env map[string]string) *org {
	t.Helper()
	dir := t.TempDir()
	sb, err := sandbox.StartWith(dir, discardLogger(), opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sb.Close(ctx)
	})
	dataURL, err := sb.URL("data", "")
	require.NoError(t, err)
	full := map[string]string{"GATEWAY_TLS": "off", "GATEWAY_DATA_DIR": dir}
	for k, v := range env {
		full[k] = strings.ReplaceAll(v, "${DATA}", dataURL)
	}
	cfg, err := config.Load(shippedConfig, func(k string) string { return full[k] })
	require.NoError(t, err)
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{})
	require.NoError(t, err)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	sh := &Shared{Logger: logger, Metrics: m, CallLog: &recordingLog{},
		Duplicates: duplicates.New(time.Minute, 1000), Upstreams: NewUpstreamSet(m, sb.URL)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gw, err := Build(ctx, cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	return &org{handler: gw.Handler, sb: sb, logs: logs}
}

// answer is an envelope as a client reads it.
type answer struct {
	status       int
	header       http.Header
	raw          string
	Result       json.RawMessage `json:"result"`
	Page         *pageOf         `json:"page"`
	ResponseCode *struct {
		ID                     string `json:"id"`
		FormattedSystemMessage string `json:"formattedSystemMessage"`
	} `json:"responseCode"`
}

type pageOf struct {
	Start int    `json:"start"`
	Size  int    `json:"size"`
	Total int64  `json:"total"`
	Next  string `json:"next"`
}

func (o *org) do(t *testing.T, req *http.Request) answer {
	t.Helper()
	rec := httptest.NewRecorder()
	o.handler.ServeHTTP(rec, req)
	a := answer{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &a), rec.Body.String())
	return a
}

func (o *org) get(t *testing.T, path string) answer {
	t.Helper()
	return o.do(t, httptest.NewRequest(http.MethodGet, path, nil))
}

func soql(version, q string) string { return "/" + version + "/query?q=" + url.QueryEscape(q) }

// clientCredentials is the environment of the client-credentials flow
// against the sandbox org.
func clientCredentials() map[string]string {
	return map[string]string{"DATA_OAUTH_FLOW": "client-credentials", "DATA_TOKEN_URL": "${DATA}/services/oauth2/token",
		"DATA_CLIENT_ID": "consumer-key", "DATA_CLIENT_SECRET": "consumer-secret"}
}

func upload(t *testing.T, o *org, names ...string) answer {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	require.NoError(t, mw.WriteField("subjectId", "001000000000001AAA"))
	for _, n := range names {
		w, err := mw.CreateFormFile("file", n)
		require.NoError(t, err)
		_, _ = w.Write([]byte("content of " + n))
	}
	require.NoError(t, mw.Close())
	req := httptest.NewRequest(http.MethodPost, "/v2/files", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return o.do(t, req)
}

func TestEndedSessionIsRenewedForEveryCaller(t *testing.T) {
	t.Parallel()
	o := newOrg(t, sandbox.Options{Org: sfdc.OrgOptions{SessionTTL: time.Hour}}, clientCredentials())
	q := soql("v2", "SELECT Id, LastName FROM Contact LIMIT 1")
	require.Equal(t, http.StatusOK, o.get(t, q).status)
	require.Equal(t, 1, o.sb.Org().Issued())

	o.sb.Org().Expire()
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := o.get(t, q)
			assert.Equal(t, http.StatusOK, a.status, a.raw)
		}()
	}
	wg.Wait()
	assert.Equal(t, 2, o.sb.Org().Issued(), "one renewal shared by the concurrent callers")

	// The batch upload uses the same token: no new one.
	a := upload(t, o, "a.txt")
	require.Equal(t, http.StatusOK, a.status, a.raw)
	assert.Equal(t, 2, o.sb.Org().Issued())
}

func TestBackendAnswersAreNeverTheClientsCredentials(t *testing.T) {
	t.Parallel()
	q := soql("v2", "SELECT Id FROM Contact LIMIT 1")
	t.Run("refused static token", func(t *testing.T) {
		t.Parallel()
		o := newOrg(t, sandbox.Options{}, map[string]string{"DATA_ACCESS_TOKEN": "revoked"})
		a := o.get(t, q)
		assert.Equal(t, http.StatusBadGateway, a.status, "never a 401 to the client")
		assert.Equal(t, "CALLOUT_FAILED", a.ResponseCode.ID)
	})
	t.Run("token endpoint failing", func(t *testing.T) {
		t.Parallel()
		env := clientCredentials()
		env["DATA_TOKEN_URL"] = "${DATA}/services/oauth2/nowhere"
		o := newOrg(t, sandbox.Options{}, env)
		a := o.get(t, q)
		assert.Equal(t, http.StatusBadGateway, a.status)
		assert.Equal(t, "CALLOUT_FAILED", a.ResponseCode.ID)
		assert.Contains(t, o.logs.String(), "no access token", "the reason is in the log")
	})
	t.Run("request limit", func(t *testing.T) {
		t.Parallel()
		o := newOrg(t, sandbox.Options{}, nil)
		o.sb.Org().LimitNext(1)
		a := o.get(t, q)
		assert.Equal(t, http.StatusServiceUnavailable, a.status)
		assert.Equal(t, "CALLOUT_FAILED", a.ResponseCode.ID)
		assert.Contains(t, a.raw, "the org's API request limit is exceeded")
		assert.NotEmpty(t, a.header.Get("Retry-After"))
		a = o.get(t, q)
		assert.Equal(t, http.StatusServiceUnavailable, a.status, "the guard tripped: the next call is not sent")
		assert.Contains(t, a.raw, "the org's API allowance is reserved for essential calls")
		assert.NotEmpty(t, a.header.Get("Retry-After"))
	})
	t.Run("retired version", func(t *testing.T) {
		t.Parallel()
		o := newOrg(t, sandbox.Options{Org: sfdc.OrgOptions{VersionFloor: 41}}, map[string]string{"DATA_API_VERSION": "v35.0"})
		a := o.get(t, q)
		assert.Equal(t, http.StatusBadGateway, a.status)
		assert.Equal(t, "CALLOUT_FAILED", a.ResponseCode.ID)
		assert.Contains(t, o.logs.String(), "API version v35.0 is retired", "the log names the version")
	})
}

func TestCollidingFieldsAndRelationshipsAreMapped(t *testing.T) {
	t.Parallel()
	o := newOrg(t, sandbox.Options{QueryBatch: 1}, nil)
	a := o.get(t, soql("v2", "SELECT Id, Description, Description__c, Preferred_Channel__c, PreferredChannel__c, "+
		"Account.Name, Owner.Email FROM Contact ORDER BY LastName LIMIT 1"))
	require.Equal(t, http.StatusOK, a.status, a.raw)
	var q struct {
		Records []map[string]json.RawMessage `json:"records"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &q))
	require.Len(t, q.Records, 1)
	rec := q.Records[0]
	for _, k := range []string{"id", "description", "descriptionC", "preferredChannel", "preferredChannelC", "account", "owner"} {
		assert.Contains(t, rec, k)
	}
	assert.JSONEq(t, `{"type":"Contact"}`, string(rec["attributes"]))
	var account, owner map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(rec["account"], &account))
	require.NoError(t, json.Unmarshal(rec["owner"], &owner))
	assert.Contains(t, account, "name", "the parent is mapped by its own type")
	assert.Contains(t, owner, "email")
	assert.Contains(t, o.logs.String(), `Description__c -> \"descriptionC\"`, "the tie-break is logged")

	model := o.get(t, "/v2/settings/model/Contact")
	require.Equal(t, http.StatusOK, model.status, model.raw)
	for _, pair := range []string{`"Description__c":"descriptionC"`, `"PreferredChannel__c":"preferredChannel"`, `"Owner":"owner"`} {
		assert.Contains(t, string(model.Result), pair)
	}

	// Parent-to-child: the subquery's records by their type, its next batch
	// through the gateway.
	a = o.get(t, soql("v2", "SELECT Id, Name, (SELECT Id, LastName FROM Contacts) FROM Account WHERE Name = 'Burlington Textiles Corp of America'"))
	require.Equal(t, http.StatusOK, a.status, a.raw)
	var parents struct {
		Records []struct {
			Contacts struct {
				TotalSize      int                          `json:"totalSize"`
				NextRecordsURL string                       `json:"nextRecordsUrl"`
				Records        []map[string]json.RawMessage `json:"records"`
			} `json:"contacts"`
		} `json:"records"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &parents))
	require.Len(t, parents.Records, 1, a.raw)
	sub := parents.Records[0].Contacts
	require.Len(t, sub.Records, 1)
	assert.Contains(t, sub.Records[0], "lastName")
	require.True(t, strings.HasPrefix(sub.NextRecordsURL, "/v2/query/01g"), "%q in %s", sub.NextRecordsURL, a.raw)
	more := o.get(t, sub.NextRecordsURL)
	require.Equal(t, http.StatusOK, more.status, more.raw)
	assert.Contains(t, string(more.Result), `"lastName"`)
}

func TestSearchHasOneShapeWhateverTheVersion(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"v35.0", "v62.0"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			o := newOrg(t, sandbox.Options{}, map[string]string{"DATA_API_VERSION": v})
			a := o.get(t, "/v2/search?q="+url.QueryEscape("FIND {Olivia} IN NAME FIELDS RETURNING Contact(Id, LastName)"))
			require.Equal(t, http.StatusOK, a.status, a.raw)
			var s struct {
				SearchRecords []map[string]json.RawMessage `json:"searchRecords"`
			}
			require.NoError(t, json.Unmarshal(a.Result, &s), string(a.Result))
			require.NotEmpty(t, s.SearchRecords)
			assert.Contains(t, s.SearchRecords[0], "lastName")
		})
	}
}

func TestProxyRoutePagesInsteadOfTruncating(t *testing.T) {
	t.Parallel()
	o := newOrg(t, sandbox.Options{QueryBatch: 15}, nil)
	seen := map[string]bool{}
	next, pages := "/v2/contacts", 0
	for next != "" {
		a := o.get(t, next)
		require.Equal(t, http.StatusOK, a.status, a.raw)
		require.NotNil(t, a.Page, "a part of a longer list says so")
		var recs []map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(a.Result, &recs))
		assert.Equal(t, len(seen), a.Page.Start)
		assert.Equal(t, len(recs), a.Page.Size)
		assert.EqualValues(t, 40, a.Page.Total)
		for _, r := range recs {
			seen[string(r["id"])] = true
			assert.Contains(t, r, "lastName")
		}
		next = a.Page.Next
		pages++
		require.Less(t, pages, 10)
	}
	assert.Len(t, seen, 40, "every contact, once")
	assert.Equal(t, 3, pages)
	bad := o.get(t, "/v2/contacts?cursor=..%2Fetc")
	assert.Equal(t, http.StatusBadRequest, bad.status)
}

func TestNoBackendAddressReachesClients(t *testing.T) {
	t.Parallel()
	o := newOrg(t, sandbox.Options{QueryBatch: 3}, nil)
	dataURL, err := o.sb.URL("data", "")
	require.NoError(t, err)
	host := strings.TrimPrefix(dataURL, "http://")
	host = host[:strings.IndexByte(host, '/')]
	for _, path := range []string{"/v2/data", "/v2/data/v62.0", "/v2/sobjects", "/v2/sobjects/Account", "/v2/sobjects/Contact/describe",
		soql("v2", "SELECT Id, Account.Name, Owner.Email FROM Contact LIMIT 5"),
		soql("v2", "SELECT Id, Name, (SELECT Id FROM Contacts) FROM Account"),
		"/v2/search?q=" + url.QueryEscape("FIND {Olivia}"), "/v2/contacts"} {
		a := o.get(t, path)
		require.Equal(t, http.StatusOK, a.status, "%s: %s", path, a.raw)
		assert.NotContains(t, a.raw, "/services/", path)
		assert.NotContains(t, a.raw, host, path)
	}
	a := o.get(t, "/v2/sobjects/Account/describe")
	assert.Contains(t, a.raw, `"describe":"/v2/sobjects/Account/describe"`, "a served address becomes the gateway's")
}

func TestUploadFollowsTheConfiguredVersion(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"v35.0", "v62.0"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			o := newOrg(t, sandbox.Options{}, map[string]string{"DATA_API_VERSION": v})
			a := upload(t, o, "one.txt", "two.pdf")
			require.Equal(t, http.StatusOK, a.status, a.raw)
			var results []struct {
				StatusCode int    `json:"statusCode"`
				ID         string `json:"id"`
			}
			require.NoError(t, json.Unmarshal(a.Result, &results))
			require.Len(t, results, 2)
			for _, r := range results {
				assert.Equal(t, http.StatusCreated, r.StatusCode, a.raw)
				assert.True(t, strings.HasPrefix(r.ID, "0D5"), r.ID)
			}
		})
	}
}
