package app

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCacheNeverServesAWrongAnswer drives random callers, reads and writes
// through the real router against a backend whose state the test models,
// and checks every answer: its result is the backend's at that moment (the
// only writes are the gateway's, which invalidate), its userId is the
// caller's, and an answer of the per-user route is a hit only for a
// caller (and Accept-Language) that fetched it since the last write; so is
// a kept 404 of an item that does not exist yet.
func TestCacheNeverServesAWrongAnswer(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			runCacheProperty(t, seed, 300)
		})
	}
}

func runCacheProperty(t *testing.T, seed uint64, steps int) {
	b := newThingsBackend(t)
	users := []string{"alice", "bob", "carol"}
	var keys strings.Builder
	for _, u := range users {
		sum := sha256.Sum256([]byte("key-" + u))
		fmt.Fprintf(&keys, "    - {sha256: %s, userId: %s}\n", hex.EncodeToString(sum[:]), u)
	}
	yaml := fmt.Sprintf(`
versions: [v1, v2]
auth:
  mode: apikey
  apiKeys:
%supstreams:
  things: {url: %s, retry: {attempts: 1}}
routes:
  - {path: "/{version}/things", kind: proxy, upstream: things, upstreamPath: "/things", methods: [GET, POST],
     cache: {ttl: 1h, scope: shared}}
  - {path: "/{version}/things/{id}", kind: proxy, upstream: things, upstreamPath: "/things/{id}", methods: [GET, PUT],
     cache: {ttl: 1h, notFoundTTL: 1h, vary: [Accept-Language]}}
`, keys.String(), b.srv.URL)
	h := newHarness(t, yaml, nil)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	model := map[string]string{"1": "one", "2": "two"}
	// fetched: per-user read keys fetched since the last write of the thing
	fetched := map[string]bool{}
	ids := []string{"1", "2", "3"}
	langs := []string{"", "fr", "de"}
	for step := range steps {
		user := users[rng.IntN(len(users))]
		version := []string{"v1", "v2"}[rng.IntN(2)]
		id := ids[rng.IntN(len(ids))]
		hdr := map[string]string{"X-API-Key": "key-" + user}
		where := fmt.Sprintf("step %d (seed %d, %s)", step, seed, user)
		switch op := rng.IntN(10); {
		case op < 2: // write an item
			name := fmt.Sprintf("n%d", rng.IntN(1000))
			hdr["Content-Type"] = "application/json"
			rec, _ := h.do(t, http.MethodPut, "/"+version+"/things/"+id, `{"Name":"`+name+`"}`, hdr)
			require.Equal(t, http.StatusOK, rec.Code, where)
			model[id] = name
			for k := range fetched {
				if strings.Contains(k, "|"+id+"|") {
					delete(fetched, k)
				}
			}
		case op < 3: // read the collection (shared)
			rec, env := h.do(t, http.MethodGet, "/"+version+"/things", "", hdr)
			require.Equal(t, http.StatusOK, rec.Code, where)
			require.Equal(t, user, env["userId"], where)
			got := env["result"].(map[string]any)["things"].(map[string]any)
			require.Len(t, got, len(model), where)
			for k, v := range model {
				require.Equal(t, v, got[k], "%s: the collection is the backend's now", where)
			}
		default: // read an item (per user, varying on Accept-Language)
			lang := langs[rng.IntN(len(langs))]
			if lang != "" {
				hdr["Accept-Language"] = lang
			}
			req := httptest.NewRequest(http.MethodGet, "/"+version+"/things/"+id, nil)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.handler.ServeHTTP(rec, req)
			env := envelopeOf(t, rec)
			key := user + "|" + id + "|" + version + "|" + lang
			name, exists := model[id]
			require.Equal(t, user, env["userId"], where)
			if exists {
				require.Equal(t, http.StatusOK, rec.Code, where)
				require.Equal(t, name, env["result"].(map[string]any)["name"], "%s: the item is the backend's now", where)
			} else {
				require.Equal(t, http.StatusNotFound, rec.Code, "%s: a kept 404 ends with the write that creates the item", where)
			}
			if strings.Contains(rec.Header().Get("Cache-Status"), "; hit") {
				require.True(t, fetched[key], "%s: a hit for %s, who had not fetched it since the last write", where, key)
			}
			fetched[key] = true
		}
	}
}
