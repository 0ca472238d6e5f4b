package cache

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/upstreams"
)

func TestJudge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	shared := Policy{TTL: time.Minute, Shared: true, ObeyBackend: true, Vary: []string{"Accept-Language"}}
	for _, tc := range []struct {
		desc string
		pol  Policy
		h    upstreams.AnswerHeaders
		want verdict
	}{
		{"nothing said: the route's ttl", shared, upstreams.AnswerHeaders{}, verdict{store: true, fresh: time.Minute}},
		{"no-store", shared, upstreams.AnswerHeaders{CacheControl: "no-store"}, verdict{reason: "no-store"}},
		{"private in a shared scope", shared, upstreams.AnswerHeaders{CacheControl: "private"}, verdict{reason: "private"}},
		{"private per user", Policy{TTL: time.Minute, ObeyBackend: true}, upstreams.AnswerHeaders{CacheControl: "private"},
			verdict{store: true, fresh: time.Minute}},
		{"a cookie in a shared scope", shared, upstreams.AnswerHeaders{SetCookie: true}, verdict{reason: "set-cookie"}},
		{"Vary: *", shared, upstreams.AnswerHeaders{Vary: "*"}, verdict{reason: "vary-star"}},
		{"a Vary the route does not key on", shared, upstreams.AnswerHeaders{Vary: "Accept-Encoding, X-Tenant"}, verdict{reason: "vary-x-tenant"}},
		{"a Vary the route keys on", shared, upstreams.AnswerHeaders{Vary: "accept-language"}, verdict{store: true, fresh: time.Minute}},
		{"max-age shortens", shared, upstreams.AnswerHeaders{CacheControl: "max-age=10"}, verdict{store: true, fresh: 10 * time.Second}},
		{"max-age never lengthens", shared, upstreams.AnswerHeaders{CacheControl: "max-age=3600"}, verdict{store: true, fresh: time.Minute}},
		{"s-maxage wins over max-age", shared, upstreams.AnswerHeaders{CacheControl: "max-age=5, s-maxage=20"}, verdict{store: true, fresh: 20 * time.Second}},
		{"Expires less Date", shared, upstreams.AnswerHeaders{Expires: "Fri, 02 Jan 2026 03:04:35 GMT", Date: "Fri, 02 Jan 2026 03:04:05 GMT"},
			verdict{store: true, fresh: 30 * time.Second}},
		{"an Expires in the past", shared, upstreams.AnswerHeaders{Expires: "Thu, 01 Jan 1970 00:00:00 GMT"}, verdict{store: true}},
		{"Age counts", shared, upstreams.AnswerHeaders{CacheControl: "max-age=30", Age: "10"}, verdict{store: true, fresh: 20 * time.Second}},
		{"no-cache: kept, never fresh nor stale", shared, upstreams.AnswerHeaders{CacheControl: "no-cache"}, verdict{store: true, noStale: true}},
		{"must-revalidate: never stale", shared, upstreams.AnswerHeaders{CacheControl: "must-revalidate"},
			verdict{store: true, fresh: time.Minute, noStale: true}},
		{"Salesforce's marks ignored", Policy{TTL: time.Minute, Shared: true}, upstreams.AnswerHeaders{
			CacheControl: "no-cache,must-revalidate,max-age=0,no-store,private", Expires: "Thu, 01 Jan 1970 00:00:00 GMT", SetCookie: true},
			verdict{store: true, fresh: time.Minute}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.pol.judge(tc.h, now))
		})
	}
}

func FuzzParseCacheControl(f *testing.F) {
	for _, s := range []string{"no-cache,must-revalidate,max-age=0,no-store,private", `max-age="10", s-maxage=x`, "", ",,=", "max-age=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d := parseCacheControl(v)
		if d.maxAge < 0 || d.sMaxAge < 0 || d.maxAge > maxLifetime || d.sMaxAge > maxLifetime {
			t.Fatalf("%q: ages out of bounds: %+v", v, d)
		}
		if !strings.Contains(strings.ToLower(v), "no-store") && d.noStore {
			t.Fatalf("%q: no-store from nowhere", v)
		}
	})
}

func TestKeyNormalisesTheQueryAndKeepsCallersApart(t *testing.T) {
	t.Parallel()
	rp := &RoutePlan{Fingerprint: "fp", Policy: Policy{Vary: []string{"Accept-Language"}}}
	key := func(target, user, lang string) string {
		r := &http.Request{URL: mustURL(t, target), Header: http.Header{}}
		if lang != "" {
			r.Header.Set("Accept-Language", lang)
		}
		k, ok := keyOf(rp, r, &call.Call{Version: "v1", Identity: call.Identity{UserID: user}})
		assert.True(t, ok)
		return k
	}
	assert.Equal(t, key("/v1/a?b=1&a=2", "u", ""), key("/v1/a?a=2&b=1", "u", ""), "query order")
	assert.Equal(t, key("/v1/a?a=%41", "u", ""), key("/v1/a?a=A", "u", ""), "query escaping")
	assert.NotEqual(t, key("/v1/a?a=1&a=2", "u", ""), key("/v1/a?a=2&a=1", "u", ""), "a repeated parameter's order means something")
	assert.NotEqual(t, key("/v1/a", "u", ""), key("/v1/a", "w", ""), "scope user: per caller")
	assert.NotEqual(t, key("/v1/a", "u", "fr"), key("/v1/a", "u", "de"), "vary")
	assert.NotEqual(t, key("/v1/a/1", "u", ""), key("/v1/a/2", "u", ""), "ids")
	rp.Policy.Shared = true
	assert.Equal(t, key("/v1/a", "u", ""), key("/v1/a", "w", ""), "scope shared")
	_, ok := keyOf(rp, &http.Request{URL: &url.URL{Path: "/v1/a", RawQuery: "a=%zz"}}, &call.Call{})
	assert.False(t, ok, "a query that does not parse is not cached")
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestMarksInvalidateWhatStartedBefore(t *testing.T) {
	t.Parallel()
	m := newMarks(10, time.Now)
	item := readDeps("/{version}/things/{id}", "/v1/things/1", "up", "/things/1")
	other := readDeps("/{version}/things/{id}", "/v1/things/2", "up", "/things/2")
	list := readDeps("/{version}/things", "/v1/things", "up", "/things")
	before := m.current()
	m.bump(writeMarks("up", "/things/1"))
	assert.False(t, m.valid(before, item), "the item written")
	assert.False(t, m.valid(before, list), "its collection")
	assert.True(t, m.valid(before, other), "another item")
	assert.True(t, m.valid(m.current(), item), "what started after the write")
	before = m.current()
	m.bump(writeMarks("up", "/things"))
	assert.False(t, m.valid(before, other), "a write of the collection reaches its items")
	before = m.current()
	m.bump(writeMarks("other", "/things/2"))
	assert.True(t, m.valid(before, other), "another upstream's resource")
	for i := range 20 { // past max: everything is dropped, never kept wrongly
		m.bump([]uint64{uint64(i)})
	}
	assert.False(t, m.valid(before, other))
}
