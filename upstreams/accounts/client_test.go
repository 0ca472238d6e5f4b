package accounts

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// wantCall is one request the strict fake expects, in order, and its answer.
type wantCall struct {
	method, path, query, contentType, body string
	status                                 int
	reply                                  string
}

// strictBackend answers the calls in order and fails the test on any
// difference in method, path, query, content type or body, on an extra
// call, or on a missing one.
func strictBackend(t *testing.T, calls ...wantCall) *httptest.Server {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if i >= len(calls) {
			t.Errorf("unexpected call %s %s", r.Method, r.URL)
			w.WriteHeader(http.StatusTeapot)
			return
		}
		c := calls[i]
		body, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		assert.Equal(t, c.method, r.Method, "call %d method", i)
		assert.Equal(t, c.path, r.URL.EscapedPath(), "call %d path", i)
		assert.Equal(t, c.query, r.URL.RawQuery, "call %d query", i)
		assert.Equal(t, c.contentType, r.Header.Get("Content-Type"), "call %d content type", i)
		assert.Equal(t, c.body, string(body), "call %d body", i)
		assert.Equal(t, "application/json", r.Header.Get("Accept"), "call %d accept", i)
		w.WriteHeader(c.status)
		_, _ = io.WriteString(w, c.reply)
	}))
	t.Cleanup(func() {
		srv.Close()
		assert.Equal(t, len(calls), int(n.Load()), "number of calls")
	})
	return srv
}

const (
	idA = "001A00000000000AAA"
	idB = "001B00000000000BBB"
)

func TestClientCalls(t *testing.T) {
	t.Parallel()
	get := func(path string, status int, reply string) wantCall {
		return wantCall{method: http.MethodGet, path: path, status: status, reply: reply}
	}
	tests := []struct {
		desc  string
		opts  Options
		calls []wantCall
		run   func(ctx context.Context, c *Client) (any, error)
		want  any
	}{
		{
			desc:  "list everything",
			calls: []wantCall{get("/api/v1/account/", 200, `[{"Id":"a"},{"Id":"b"}]`)},
			run:   func(ctx context.Context, c *Client) (any, error) { return str(c.List(ctx, nil)) },
			want:  `[{"Id":"a"},{"Id":"b"}]`,
		},
		{
			desc: "paging backend: the backend pages",
			opts: Options{Paging: PagingBackend},
			calls: []wantCall{{method: "GET", path: "/api/v1/account/", query: "limit=2&offset=1", status: 200,
				reply: ` [{"Id":"b"}, {"Id":"c"}] `}},
			run:  func(ctx context.Context, c *Client) (any, error) { return str(c.List(ctx, &Page{Limit: 2, Offset: 1})) },
			want: ` [{"Id":"b"}, {"Id":"c"}] `,
		},
		{
			desc: "paging backend: the rest after an offset",
			opts: Options{Paging: PagingBackend},
			calls: []wantCall{{method: "GET", path: "/api/v1/account/", query: "offset=3", status: 200,
				reply: `[{"Id":"d"}]`}},
			run: func(ctx context.Context, c *Client) (any, error) {
				return str(c.List(ctx, &Page{Limit: -1, Offset: 3}))
			},
			want: `[{"Id":"d"}]`,
		},
		{
			desc: "paging adapter: the whole list fetched, the page cut",
			calls: []wantCall{{method: "GET", path: "/api/v1/account/", status: 200,
				reply: `[{"Id":"a"}, {"Id":"b","N":[1,2]}, {"Id":"c"}, {"Id":"d"}]`}},
			run:  func(ctx context.Context, c *Client) (any, error) { return str(c.List(ctx, &Page{Limit: 2, Offset: 1})) },
			want: `[{"Id":"b","N":[1,2]},{"Id":"c"}]`,
		},
		{
			desc: "paging adapter: the offset applies to a list no longer than the limit",
			calls: []wantCall{{method: "GET", path: "/api/v1/account/", status: 200,
				reply: `[{"Id":"a"},{"Id":"b"},{"Id":"c"}]`}},
			run: func(ctx context.Context, c *Client) (any, error) {
				return str(c.List(ctx, &Page{Limit: 10, Offset: 2}))
			},
			want: `[{"Id":"c"}]`,
		},
		{
			desc: "paging adapter: a page past the end",
			calls: []wantCall{{method: "GET", path: "/api/v1/account/", status: 200,
				reply: `[{"Id":"a"},{"Id":"b"}]`}},
			run:  func(ctx context.Context, c *Client) (any, error) { return str(c.List(ctx, &Page{Limit: 1, Offset: 9})) },
			want: `[]`,
		},
		{
			desc:  "get unwraps the one-account array",
			calls: []wantCall{get("/api/v1/account/"+idA, 200, `[ {"Id":"`+idA+`","Name":"A"} ]`)},
			run:   func(ctx context.Context, c *Client) (any, error) { return text(c.Get(ctx, idA)) },
			want:  `{"Id":"` + idA + `","Name":"A"}`,
		},
		{
			desc:  "get accepts a bare object",
			calls: []wantCall{get("/api/v1/account/"+idA[:15], 200, `{"Name":"A"}`+"\n")},
			run:   func(ctx context.Context, c *Client) (any, error) { return text(c.Get(ctx, idA[:15])) },
			want:  `{"Name":"A"}`,
		},
		{
			desc: "create reads a JSON id",
			calls: []wantCall{{method: "POST", path: "/api/v1/account/", contentType: "application/json",
				body: `{"Name":"Acme"}`, status: 200, reply: `{"id": "` + idA + `"}`}},
			run:  func(ctx context.Context, c *Client) (any, error) { return c.Create(ctx, []byte(`{"Name":"Acme"}`)) },
			want: idA,
		},
		{
			desc: "create reads the original service's id text",
			calls: []wantCall{{method: "POST", path: "/api/v1/account/", contentType: "application/json",
				body: `{"Name":"Acme"}`, status: 200, reply: `{id:` + idB + `}`}},
			run:  func(ctx context.Context, c *Client) (any, error) { return c.Create(ctx, []byte(`{"Name":"Acme"}`)) },
			want: idB,
		},
		{
			desc: "update replace sends only the given fields",
			opts: Options{Update: UpdateReplace},
			calls: []wantCall{{method: "POST", path: "/api/v1/account/" + idA, contentType: "application/json",
				body: `{"BillingCity":"Oslo"}`, status: 200, reply: `{"status": "success"}`}},
			run: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.Update(ctx, idA, []byte(`{"BillingCity":"Oslo"}`))
			},
		},
		{
			desc: "update replace reads the original service's status text",
			opts: Options{Update: UpdateReplace},
			calls: []wantCall{{method: "POST", path: "/api/v1/account/" + idA, contentType: "application/json",
				body: `{}`, status: 200, reply: `{status: success}`}},
			run: func(ctx context.Context, c *Client) (any, error) { return nil, c.Update(ctx, idA, []byte(`{}`)) },
		},
		{
			desc: "update merge reads the account and sends it whole, the given fields merged, without its id",
			calls: []wantCall{
				get("/api/v1/account/"+idA, 200, `[{"Id":"`+idA+`","Name":"Acme","BillingCity":"Bergen","Phone":"1","Total_Assets__c":1.10,"attributes":{"type":"Account"}}]`),
				{method: "POST", path: "/api/v1/account/" + idA, contentType: "application/json",
					body: `{"BillingCity":"Oslo","Name":"Acme","Phone":null,"Total_Assets__c":1.10}`, status: 200, reply: `{status: success}`},
			},
			run: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.Update(ctx, idA, []byte(`{"billingcity":"Oslo","Phone":null}`))
			},
		},
		{
			desc: "update merge on the original's name-only record",
			calls: []wantCall{
				get("/api/v1/account/"+idA, 200, `[{"Name":"Acme"}]`),
				{method: "POST", path: "/api/v1/account/" + idA, contentType: "application/json",
					body: `{"Name":"Acme","Rating":"Hot"}`, status: 200, reply: `{status: success}`},
			},
			run: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.Update(ctx, idA, []byte(`{"Rating":"Hot"}`))
			},
		},
		{
			desc:  "delete",
			calls: []wantCall{{method: "DELETE", path: "/api/v1/account/" + idB, status: 200, reply: `{status : success}`}},
			run:   func(ctx context.Context, c *Client) (any, error) { return nil, c.Delete(ctx, idB) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := strictBackend(t, tt.calls...)
			got, err := tt.run(t.Context(), New(srv.URL+"/", srv.Client(), tt.opts))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// str is the text of an answer, which it releases: a test that kept using
// JSON after the release would see a reused buffer.
func str(a *upstreams.Answer, _ Placement, err error) (any, error) {
	return text(a, err)
}

// text is str of an answer without a placement.
func text(a *upstreams.Answer, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return string(a.JSON), nil
}

func TestClientBasePath(t *testing.T) {
	t.Parallel()
	srv := strictBackend(t, wantCall{method: "GET", path: "/crm/api/v1/account/", status: 200, reply: `[]`})
	got, _, err := New(srv.URL+"/crm", srv.Client(), Options{}).List(t.Context(), nil)
	require.NoError(t, err)
	assert.Equal(t, `[]`, string(got.JSON))
}

func TestClientAnswerErrors(t *testing.T) {
	t.Parallel()
	list := func(ctx context.Context, c *Client) error { _, _, err := c.List(ctx, nil); return err }
	get := func(ctx context.Context, c *Client) error { _, err := c.Get(ctx, idA); return err }
	create := func(ctx context.Context, c *Client) error { _, err := c.Create(ctx, []byte(`{}`)); return err }
	update := func(ctx context.Context, c *Client) error { return c.Update(ctx, idA, []byte(`{}`)) }
	pageOf2 := func(ctx context.Context, c *Client) error {
		_, _, err := c.List(ctx, &Page{Limit: 2, Offset: 0})
		return err
	}
	remove := func(ctx context.Context, c *Client) error { return c.Delete(ctx, idA) }
	tests := []struct {
		desc    string
		call    func(context.Context, *Client) error
		status  int
		reply   string
		kind    upstreams.Kind
		wantSt  int
		message string
		paging  Paging
	}{
		{desc: "spring 400", call: get, status: 400, kind: upstreams.KindRejected, wantSt: 400, message: "invalid account id",
			reply: `{"timestamp":"2024-01-01T00:00:00.000+00:00","status":400,"error":"Bad Request","message":"invalid account id","path":"/api/v1/account/x"}`},
		{desc: "spring 404 without message", call: get, status: 404, kind: upstreams.KindRejected, wantSt: 404, message: "Not Found",
			reply: `{"status":404,"error":"Not Found"}`},
		{desc: "text 404", call: remove, status: 404, reply: "no such account\n", kind: upstreams.KindRejected, wantSt: 404, message: "no such account"},
		{desc: "500", call: list, status: 500, reply: `{"status":500,"error":"Internal Server Error"}`, kind: upstreams.KindFailed, wantSt: 500},
		{desc: "503 page", call: create, status: 503, reply: `<html>down</html>`, kind: upstreams.KindFailed, wantSt: 503, message: "<html>down</html>"},
		{desc: "empty array is not found", call: get, status: 200, reply: `[]`, kind: upstreams.KindRejected, wantSt: 404, message: "not found"},
		{desc: "list is not JSON", call: list, status: 200, reply: `<html>`, kind: upstreams.KindInvalid},
		{desc: "list is an object", call: list, status: 200, reply: `{"Id":"a"}`, kind: upstreams.KindInvalid},
		{desc: "list is cut short", call: list, status: 200, reply: `[{"Id":"a"},`, kind: upstreams.KindInvalid},
		{desc: "get is a string", call: get, status: 200, reply: `"x"`, kind: upstreams.KindInvalid},
		{desc: "get holds a number", call: get, status: 200, reply: `[1]`, kind: upstreams.KindInvalid},
		{desc: "create answer without id", call: create, status: 200, reply: `{"success":true}`, kind: upstreams.KindInvalid},
		{desc: "create answer empty", call: create, status: 200, reply: ``, kind: upstreams.KindInvalid},
		{desc: "update failure", call: update, status: 200, reply: `{status : failure}`, kind: upstreams.KindRejected, wantSt: 400, message: "update failed"},
		{desc: "delete failure", call: remove, status: 200, reply: `{"status":"failure"}`, kind: upstreams.KindRejected, wantSt: 400, message: "delete failed"},
		{desc: "update answer unknown", call: update, status: 200, reply: `OK`, kind: upstreams.KindInvalid},
		{desc: "a paging backend that did not page", call: pageOf2, paging: PagingBackend, status: 200, reply: `[{"Id":"a"},{"Id":"b"},{"Id":"c"}]`,
			kind: upstreams.KindInvalid, message: "answered 3 accounts for limit 2: it does not page"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.reply)
			}))
			defer srv.Close()
			err := tt.call(t.Context(), New(srv.URL, srv.Client(), Options{Paging: tt.paging, Update: UpdateReplace}))
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "%v", err)
			assert.Equal(t, Name, ue.Upstream)
			assert.Equal(t, tt.kind, ue.Kind, ue.Error())
			assert.Equal(t, tt.wantSt, ue.Status)
			assert.Contains(t, ue.Message, tt.message)
		})
	}
}

// doerFunc lets a test stand in for the shared client.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

func TestClientRefusesBadInputWithoutCalling(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	c := New("http://accounts.invalid", doerFunc(func(*http.Request) (*http.Response, error) {
		calls.Add(1)
		return nil, errors.New("must not be called")
	}), Options{})
	ctx := t.Context()
	tests := []struct {
		desc string
		call func() error
	}{
		{desc: "get empty id", call: func() error { _, err := c.Get(ctx, ""); return err }},
		{desc: "get short id", call: func() error { _, err := c.Get(ctx, "001abc"); return err }},
		{desc: "get path in id", call: func() error { _, err := c.Get(ctx, "001/../../admin/x"); return err }},
		{desc: "update escaped id", call: func() error { return c.Update(ctx, "001000000000%2F0AA", []byte(`{}`)) }},
		{desc: "delete 16 characters", call: func() error { return c.Delete(ctx, "0010000000000000") }},
		{desc: "delete non-ASCII", call: func() error { return c.Delete(ctx, "001000000000000ÄA") }},
		{desc: "negative offset", call: func() error { _, _, err := c.List(ctx, &Page{Limit: 1, Offset: -1}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			ue := upstreams.AsError(tt.call())
			require.NotNil(t, ue)
			assert.Equal(t, upstreams.KindRejected, ue.Kind)
			assert.Equal(t, http.StatusBadRequest, ue.Status)
		})
	}
	t.Cleanup(func() { assert.Zero(t, calls.Load()) })
}

func TestClientTransportErrors(t *testing.T) {
	t.Parallel()
	open := &upstreams.Error{Upstream: Name, Kind: upstreams.KindOpen, RetryAfter: time.Second}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(1, 0))
	defer cancel2()

	tests := []struct {
		desc string
		ctx  context.Context
		c    *Client
		kind upstreams.Kind
	}{
		{desc: "shared client error passes through", ctx: context.Background(),
			c: New("http://x", doerFunc(func(*http.Request) (*http.Response, error) {
				return nil, open
			}), Options{}), kind: upstreams.KindOpen},
		{desc: "connection refused", ctx: context.Background(), c: New(closed.URL, http.DefaultClient, Options{}), kind: upstreams.KindFailed},
		{desc: "caller went away", ctx: canceled, c: New(closed.URL, http.DefaultClient, Options{}), kind: upstreams.KindCanceled},
		{desc: "deadline passed", ctx: expired, c: New(closed.URL, http.DefaultClient, Options{}), kind: upstreams.KindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, _, err := tt.c.List(tt.ctx, nil)
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "%v", err)
			assert.Equal(t, tt.kind, ue.Kind)
			assert.Equal(t, Name, ue.Upstream)
			if tt.kind == upstreams.KindOpen {
				assert.Same(t, open, ue, "not wrapped again")
			}
		})
	}
}

func TestRequestHeadersCannotSpillIntoEachOther(t *testing.T) {
	t.Parallel()
	var headers []http.Header
	c := New("http://accounts.test", doerFunc(func(r *http.Request) (*http.Response, error) {
		headers = append(headers, r.Header)
		r.Header.Add("Accept", "text/plain") // a Doer that extends the header
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(`{"id":"001000000000001AAA"}`))}, nil
	}), Options{})
	_, err := c.Create(context.Background(), []byte(`{"Name":"A"}`))
	require.NoError(t, err)
	_, err = c.Create(context.Background(), []byte(`{"Name":"B"}`))
	require.NoError(t, err)
	require.Len(t, headers, 2)
	assert.Equal(t, []string{"application/json", "text/plain"}, headers[0]["Accept"])
	assert.Equal(t, []string{"application/json", "text/plain"}, headers[1]["Accept"], "the first request's Add did not reach the second")
	assert.Equal(t, []string{"application/json"}, headers[1]["Content-Type"])
}

// recordingDoer answers every request with an empty list and keeps the
// requests it was given.
type recordingDoer struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (d *recordingDoer) Do(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.reqs = append(d.reqs, req)
	d.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("[]")), Request: req}, nil
}

type callerKey struct{}

func TestWholeListRequestIsBoundToEachCall(t *testing.T) {
	t.Parallel()
	d := &recordingDoer{}
	c := New("http://accounts.example:8080/", d, Options{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ans, _, err := c.List(context.WithValue(context.Background(), callerKey{}, i), nil)
			if assert.NoError(t, err) {
				ans.Release()
			}
		})
	}
	wg.Wait()
	require.Len(t, d.reqs, 8)
	seen := map[any]bool{}
	for _, req := range d.reqs {
		assert.Equal(t, http.MethodGet, req.Method)
		assert.Equal(t, "http://accounts.example:8080/api/v1/account/", req.URL.String())
		assert.Equal(t, "accounts.example:8080", req.Host)
		assert.Equal(t, http.Header{"Accept": {"application/json"}}, req.Header)
		assert.Nil(t, req.Body)
		seen[req.Context().Value(callerKey{})] = true
	}
	assert.Len(t, seen, 8, "each request carries its own call's context")
	assert.Equal(t, http.Header{"Accept": {"application/json"}}, c.whole.Header, "the shared request is never changed")
}

func TestWholeListRequestThroughTheSharedClientKeepsItsHeader(t *testing.T) {
	t.Parallel()
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer s3cret" && r.Header.Get("Accept") == "application/json" {
			sent.Add(1)
		}
		_, _ = io.WriteString(w, "[]")
	}))
	t.Cleanup(srv.Close)
	shared, err := upstreams.NewClient(Name, upstreams.Settings{URL: srv.URL, Auth: upstreams.AuthSettings{BearerToken: "s3cret"}}, nil)
	require.NoError(t, err)
	c := New(srv.URL, shared, Options{})
	for range 3 {
		ans, _, err := c.List(context.Background(), nil)
		require.NoError(t, err)
		ans.Release()
	}
	assert.EqualValues(t, 3, sent.Load(), "every call sent the credentials and Accept")
	assert.Equal(t, http.Header{"Accept": {"application/json"}}, c.whole.Header,
		"the credentials went on the attempt's own header, not the shared request's")
}
