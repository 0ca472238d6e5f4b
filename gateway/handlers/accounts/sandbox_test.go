package accounts_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/accounts"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// accountID matches the sandbox's random 18-character account ids.
var accountID = regexp.MustCompile(`001[0-9A-Za-z]{15}`)

// TestGoldenLists compares the v1, v2 and v3 list answers of the freshly
// seeded sandbox with testdata, the random ids, the timestamp and the total
// time normalised.
func TestGoldenLists(t *testing.T) {
	t.Parallel()
	url, _ := newSandbox(t, t.TempDir())
	gw := newGateway(t, url, accounts.Options{})
	for _, v := range []string{"v1", "v2", "v3"} {
		t.Run(v, func(t *testing.T) {
			a := do(t, gw, "GET", "/"+v+"/accounts", "", "")
			require.Equal(t, 200, a.Status, "answer: %s", a.Raw)
			got := normalise(t, a.Raw)
			path := filepath.Join("testdata", "list_"+v+".golden.json")
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
		})
	}
}

// normalise replaces each account id by its first-seen position and fixes
// the clock fields, then indents.
func normalise(t *testing.T, raw []byte) []byte {
	t.Helper()
	ids := map[string]string{}
	raw = accountID.ReplaceAllFunc(raw, func(id []byte) []byte {
		if _, ok := ids[string(id)]; !ok {
			ids[string(id)] = fmt.Sprintf("ID-%02d", len(ids)+1)
		}
		return []byte(ids[string(id)])
	})
	var env map[string]any
	require.NoError(t, json.Unmarshal(raw, &env))
	require.Contains(t, env, "timeStamp")
	require.Contains(t, env, "totalTime")
	env["timeStamp"], env["totalTime"] = "<timestamp>", 0
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(env))
	return out.Bytes()
}

// TestSandboxLifecycle runs one account through every route against the
// reference account controller over HTTP.
func TestSandboxLifecycle(t *testing.T) {
	t.Parallel()
	url, _ := newSandbox(t, t.TempDir())
	gw := newGateway(t, url, accounts.Options{})

	created := do(t, gw, "POST", "/v2/accounts", `{"name":"Lifecycle Ltd","totalAssets":12.5,"billingCity":"Oslo"}`, "")
	require.Equal(t, 201, created.Status, "answer: %s", created.Raw)
	var ref struct{ ID string }
	require.NoError(t, json.Unmarshal(created.Result, &ref))
	require.Regexp(t, accountID, ref.ID)

	v1 := do(t, gw, "GET", "/v1/accounts/"+ref.ID, "", "")
	require.Equal(t, 200, v1.Status)
	assert.JSONEq(t, fmt.Sprintf(`{"id":%q,"name":"Lifecycle Ltd","totalassets":12.5,"billingcity":"Oslo"}`, ref.ID),
		string(v1.Result))

	upd := do(t, gw, "PUT", "/v2/accounts/"+ref.ID[:15], `{"billingCity":"Bergen","phone":"+47 1"}`, "")
	require.Equal(t, 200, upd.Status, "answer: %s", upd.Raw)
	assert.JSONEq(t, `""`, string(upd.Result))

	bulk := do(t, gw, "PUT", "/v2/accounts", fmt.Sprintf(`[{"id":%q,"rating":"Hot"},{"id":"001000000000000AAA","rating":"Cold"}]`, ref.ID), "")
	require.Equal(t, 200, bulk.Status)
	assert.JSONEq(t, fmt.Sprintf(`[{"id":%q,"statusCode":200},`+
		`{"id":"001000000000000AAA","statusCode":404,"errors":[{"errorCode":"NOT_FOUND","message":"no account has this id"}]}]`, ref.ID),
		string(bulk.Result))

	v3 := do(t, gw, "GET", "/v3/accounts/"+ref.ID, "", "")
	require.Equal(t, 200, v3.Status)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(v3.Result, &rec))
	assert.Equal(t, "Bergen", rec["billingCity"], "the partial update kept nothing but what it set")
	assert.Equal(t, "+47 1", rec["phone"])
	assert.Equal(t, "Hot", rec["rating"])
	assert.Equal(t, "Lifecycle Ltd", rec["name"], "fields not given are kept")
	assert.Contains(t, rec, "sicDesc", "v3 keeps null members")
	assert.Nil(t, rec["sicDesc"])

	del := do(t, gw, "DELETE", "/v2/accounts/"+ref.ID, "", "")
	require.Equal(t, 200, del.Status)
	for _, m := range []string{"GET", "DELETE"} {
		gone := do(t, gw, m, "/v2/accounts/"+ref.ID, "", "")
		assert.Equal(t, 404, gone.Status, "%s after delete", m)
		assert.Equal(t, "SOBJECT_OPERATION_FAILED", gone.ResponseCode.ID)
	}
	missing := do(t, gw, "PUT", "/v2/accounts/"+ref.ID, `{"name":"back"}`, "")
	assert.Equal(t, 404, missing.Status)
	assert.Equal(t, "SOBJECT_OPERATION_FAILED", missing.ResponseCode.ID)
}

// TestSandboxDeleteAll empties the store only for an admin.
func TestSandboxDeleteAll(t *testing.T) {
	t.Parallel()
	url, _ := newSandbox(t, t.TempDir())
	gw := newGateway(t, url, accounts.Options{})
	denied := do(t, gw, "DELETE", "/v2/accounts", "", "")
	assert.Equal(t, 403, denied.Status)
	assert.Equal(t, "ACCESS_DENIED", denied.ResponseCode.ID)
	assert.Len(t, listIDs(t, gw), 36, "a refused delete deletes nothing")

	all := do(t, gw, "DELETE", "/v2/accounts", "", "admin")
	require.Equal(t, 200, all.Status, "answer: %s", all.Raw)
	assert.JSONEq(t, `{"deleted":36}`, string(all.Result))
	assert.Empty(t, listIDs(t, gw))
}

// TestSandboxParallelWriters creates 50 accounts and updates each of them
// concurrently; every write must land.
func TestSandboxParallelWriters(t *testing.T) {
	t.Parallel()
	url, _ := newSandbox(t, t.TempDir())
	gw := newGateway(t, url, accounts.Options{})
	const writers = 50
	ids := make([]string, writers)
	errs := make(chan string, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			a := do(t, gw, "POST", "/v2/accounts", fmt.Sprintf(`{"name":"Writer %02d"}`, i), "")
			var ref struct{ ID string }
			if a.Status != 201 || json.Unmarshal(a.Result, &ref) != nil {
				errs <- fmt.Sprintf("create %d: %s", i, a.Raw)
				return
			}
			ids[i] = ref.ID
			u := do(t, gw, "PUT", "/v2/accounts/"+ref.ID, fmt.Sprintf(`{"billingCity":"City %02d"}`, i), "")
			if u.Status != 200 {
				errs <- fmt.Sprintf("update %d: %s", i, u.Raw)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	all := listIDs(t, gw)
	assert.Len(t, all, 36+writers)
	for i, id := range ids {
		a := do(t, gw, "GET", "/v2/accounts/"+id, "", "")
		require.Equal(t, 200, a.Status)
		var rec struct{ Name, BillingCity string }
		require.NoError(t, json.Unmarshal(a.Result, &rec))
		assert.Equal(t, fmt.Sprintf("Writer %02d", i), rec.Name)
		assert.Equal(t, fmt.Sprintf("City %02d", i), rec.BillingCity)
	}
}

// TestSandboxSurvivesRestart closes the sandbox and its database and opens
// them again on the same directory: created, updated and deleted accounts
// stay as they were, and the seed is not added again.
func TestSandboxSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, stop := newSandbox(t, dir)
	gw := newGateway(t, url, accounts.Options{})
	created := do(t, gw, "POST", "/v2/accounts", `{"name":"Durable AG","website":"durable.example"}`, "")
	require.Equal(t, 201, created.Status)
	var ref struct{ ID string }
	require.NoError(t, json.Unmarshal(created.Result, &ref))
	before := listIDs(t, gw)
	victim := before[0]
	require.Equal(t, 200, do(t, gw, "DELETE", "/v2/accounts/"+victim, "", "").Status)
	stop()

	url, _ = newSandbox(t, dir)
	gw = newGateway(t, url, accounts.Options{})
	after := listIDs(t, gw)
	assert.Equal(t, before[1:], after)
	a := do(t, gw, "GET", "/v2/accounts/"+ref.ID, "", "")
	require.Equal(t, 200, a.Status)
	assert.JSONEq(t, fmt.Sprintf(`{"id":%q,"name":"Durable AG","website":"durable.example"}`, ref.ID), string(a.Result))
	assert.Equal(t, 404, do(t, gw, "GET", "/v2/accounts/"+victim, "", "").Status)
}

// listIDs lists every account id through v1 (Id and Name only, so the
// answer stays far below the output limit).
func listIDs(t *testing.T, gw http.Handler) []string {
	t.Helper()
	a := do(t, gw, "GET", "/v1/accounts", "", "")
	require.Equal(t, 200, a.Status, "answer: %s", a.Raw)
	var recs []struct{ ID string }
	require.NoError(t, json.Unmarshal(a.Result, &recs))
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	return ids
}
