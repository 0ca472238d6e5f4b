package upstreams

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// describeBackend answers like a Salesforce describe: Last-Modified, the
// org's uncacheable marks, and 304 to an If-Modified-Since at or after the
// change; every request's validators are kept.
func describeBackend(seen *[]http.Header) http.HandlerFunc {
	const modified = "Wed, 03 Jul 2013 19:43:31 GMT"
	return func(w http.ResponseWriter, r *http.Request) {
		*seen = append(*seen, r.Header.Clone())
		w.Header().Set("Last-Modified", modified)
		w.Header().Set("Cache-Control", "no-cache,must-revalidate,max-age=0,no-store,private")
		w.Header().Add("Set-Cookie", "BrowserId=x; Path=/")
		if r.Header.Get("If-Modified-Since") == modified {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write([]byte(`{"name":"Account"}`))
	}
}

func TestCacheExchange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc        string
		ims         string
		calls       int
		notModified bool
		status      int
	}{
		{desc: "a fetch records the first answer's caching headers", calls: 2, status: 200},
		{desc: "a conditional first call answered 304 is ErrNotModified", ims: "Wed, 03 Jul 2013 19:43:31 GMT",
			calls: 1, notModified: true, status: 304},
		{desc: "a conditional first call answered 200 is an answer", ims: "Tue, 02 Jul 2013 00:00:00 GMT", calls: 2, status: 200},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var seen []http.Header
			f := newFake(t, describeBackend(&seen))
			c, rec := newTestClient(t, testSettings(f.srv.URL))
			x := &CacheExchange{IfModifiedSince: tc.ims}
			st := &CallState{Cache: x}
			ctx := WithCallState(context.Background(), st)
			status, body, err := fetch(ctx, c, http.MethodGet, f.srv.URL+"/describe", "")
			if tc.notModified {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrNotModified))
				assert.True(t, x.NotModified())
				outcomes, _ := rec.seen()
				assert.Equal(t, []string{"success"}, outcomes, "a 304 is the backend answering, not failing")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, status)
			assert.JSONEq(t, `{"name":"Account"}`, body)
			// a second call of the same request sends no validators and is not read
			_, _, err = fetch(ctx, c, http.MethodGet, f.srv.URL+"/describe", "")
			require.NoError(t, err)
			assert.Equal(t, tc.calls, x.Calls())
			first, ok := x.First()
			require.True(t, ok)
			assert.Equal(t, tc.status, first.Status)
			assert.Equal(t, "Wed, 03 Jul 2013 19:43:31 GMT", first.LastModified)
			assert.Contains(t, first.CacheControl, "no-store")
			assert.True(t, first.SetCookie)
			assert.False(t, x.NotModified())
			assert.Equal(t, tc.ims, seen[0].Get("If-Modified-Since"))
			assert.Empty(t, seen[1].Get("If-Modified-Since"), "only the first call is conditional")
		})
	}
}
