package proxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/gateway/handlers/proxy"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
)

// contactsQuery is the shipped /{version}/contacts route's backend query.
const contactsQuery = "/services/data/v35.0/query?q=SELECT+Id,AccountId,FirstName,LastName,Name,Title,Department,Email,Phone,MailingCity,MailingCountry+FROM+Contact+ORDER+BY+LastName"

func contactFields() []string {
	return []string{"Id", "AccountId", "FirstName", "LastName", "Name", "Title", "Department", "Email", "Phone", "MailingCity", "MailingCountry"}
}

// testConfig declares the shipped contacts route on upstream data and a
// few routes on upstream fake that exercise each part of a proxy route.
func testConfig() *config.Config {
	keepNulls := false
	cfg := &config.Config{
		Versions: []string{"v1", "v2", "v3"},
		Models: map[string]config.Model{
			"Contact": {Fields: contactFields(), Versions: map[string]config.ModelVersion{
				"v1": {MapKeys: map[string]string{"FirstName": "firstname", "LastName": "lastname"}}}},
			"Thing": {Fields: []string{"Id", "Display_Name__c", "Size"}},
		},
		Upstreams: map[string]upstreams.Settings{"data": {URL: "http://unused"}, "fake": {URL: "http://unused"}},
		Routes: []config.Route{
			{Path: "/{version}/contacts", Kind: config.KindProxy, Upstream: "data", Model: "Contact",
				UpstreamPath: contactsQuery, ResultPath: "records", Summary: "Lists contacts by last name"},
			{Path: "/{version}/things", Kind: config.KindProxy, Upstream: "fake", Model: "Thing",
				Methods: []string{"GET", "POST"}, UpstreamPath: "/api/things?fixed=1", Query: []string{"limit", "offset"},
				Versions: map[string]config.RouteVersion{"v2": {}, "v3": {DropNulls: &keepNulls}}},
			{Path: "/{version}/things/{thingId}", Kind: config.KindProxy, Upstream: "fake", Model: "Thing",
				Methods: []string{"GET", "PUT", "PATCH", "DELETE"}, UpstreamPath: "/api/things/{thingId}"},
			{Path: "/{version}/things/{thingId}/parts", Kind: config.KindProxy, Upstream: "fake",
				UpstreamPath: "/api/parts?of={thingId}", ResultPath: "parts",
				Produces: map[string]string{"Part_Name__c": "partName"}},
		},
	}
	config.Defaults(cfg)
	return cfg
}

// newGateway serves testConfig's routes through the real router, writer and
// trace middleware; each upstream name maps to a base URL.
func newGateway(tb testing.TB, doer upstreams.Doer, bases map[string]string) http.Handler {
	tb.Helper()
	resolve := func(name string) (proxy.Backend, error) {
		base, ok := bases[name]
		if !ok {
			return proxy.Backend{}, fmt.Errorf("no upstream named %q", name)
		}
		return proxy.Backend{Doer: doer, BaseURL: base}, nil
	}
	h, _ := handlertest.Router(tb, testConfig(), true, func(*routes.Table) map[string]router.Factory {
		return map[string]router.Factory{config.KindProxy: proxy.New(resolve, proxy.Options{})}
	})
	return middleware.Trace(h, time.Now)
}

func do(tb testing.TB, h http.Handler, method, path, body string) handlertest.Answer {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	return handlertest.Do(tb, h, httptest.NewRequest(method, path, rd))
}

// seen is one request a fake backend received.
type seen struct {
	Method, RawPath, RawQuery, ContentType, Body string
}

// fakeBackend answers every request with status, contentType and body, and
// sends what it received on the returned channel.
func fakeBackend(tb testing.TB, status int, contentType, body string) (string, <-chan seen) {
	tb.Helper()
	got := make(chan seen, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{Method: r.Method, RawPath: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery,
			ContentType: r.Header.Get("Content-Type"), Body: string(b)}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL, got
}
