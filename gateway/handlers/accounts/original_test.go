package accounts_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
)

// newOriginal serves the original account controller on a fresh database.
func newOriginal(t *testing.T) string {
	t.Helper()
	url, _ := handlertest.Sandbox(t, t.TempDir(), sandboxaccounts.NewOriginal)
	return url
}

// TestOriginalController runs the account routes through the real router
// against the original controller with the shipped options (paging
// adapter, update merge): the offset is applied though the controller
// ignores it, a delete-all that cannot name the accounts deletes nothing
// and says why, and an update keeps the fields it does not send.
func TestOriginalController(t *testing.T) {
	t.Parallel()
	gw := newGatewayFor(t, newOriginal(t), accounts.Options{}, originalController)

	a := do(t, gw, "GET", "/v2/accounts?limit=10&offset=30", "", "")
	require.Equal(t, http.StatusOK, a.Status, "%s", a.Raw)
	var names []struct{ Name string }
	require.NoError(t, json.Unmarshal(a.Result, &names))
	require.Len(t, names, 6, "accounts 31 to 36, not the first ten")
	assert.JSONEq(t, `{"start":30,"size":6,"total":36}`, string(a.Page))
	whole := do(t, gw, "GET", "/v2/accounts", "", "")
	require.Equal(t, http.StatusOK, whole.Status)
	var all []struct{ Name string }
	require.NoError(t, json.Unmarshal(whole.Result, &all))
	assert.Equal(t, all[30:], names)

	a = do(t, gw, "GET", "/v2/accounts?limit=20", "", "")
	require.Equal(t, http.StatusOK, a.Status)
	assert.JSONEq(t, `{"start":0,"size":20,"total":36,"next":"/v2/accounts?limit=20&offset=20"}`, string(a.Page),
		"limit alone pages from 0 and links the rest")

	a = do(t, gw, "DELETE", "/v2/accounts", "", "admin")
	assert.Equal(t, http.StatusNotImplemented, a.Status, "%s", a.Raw)
	assert.Equal(t, "SOBJECT_OPERATION_FAILED", a.ResponseCode.ID)
	assert.Contains(t, a.ResponseCode.FormattedClientMessage, "nothing was deleted")
	after := do(t, gw, "GET", "/v2/accounts?limit=50", "", "")
	assert.JSONEq(t, `{"start":0,"size":36,"total":36}`, string(after.Page), "every account is still there")

	created := do(t, gw, "POST", "/v2/accounts", `{"name":"Merged Ltd"}`, "")
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	var ref struct{ ID string }
	require.NoError(t, json.Unmarshal(created.Result, &ref))
	upd := do(t, gw, "PUT", "/v2/accounts/"+ref.ID, `{"rating":"Hot"}`, "")
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Raw)
	got := do(t, gw, "GET", "/v2/accounts/"+ref.ID, "", "")
	require.Equal(t, http.StatusOK, got.Status)
	assert.JSONEq(t, `{"name":"Merged Ltd"}`, string(got.Result), "the name survived an update that did not send it")

	gone := do(t, gw, "PUT", "/v2/accounts/001000000000000AAA", `{"rating":"Hot"}`, "")
	assert.Equal(t, http.StatusNotFound, gone.Status)
}

// TestOriginalWithTheWrongOptions is what the options prevent: told that
// the original pages, the gateway refuses its answer instead of passing
// the whole list off as a page; told that it updates in place, an update
// wipes the name.
func TestOriginalWithTheWrongOptions(t *testing.T) {
	t.Parallel()
	gw := newGatewayFor(t, newOriginal(t), accounts.Options{}, reference)
	a := do(t, gw, "GET", "/v2/accounts?limit=10&offset=5", "", "")
	assert.Equal(t, http.StatusBadGateway, a.Status, "%s", a.Raw)
	assert.Equal(t, "CALLOUT_FAILED", a.ResponseCode.ID)

	created := do(t, gw, "POST", "/v2/accounts", `{"name":"Wiped Ltd"}`, "")
	require.Equal(t, http.StatusCreated, created.Status)
	var ref struct{ ID string }
	require.NoError(t, json.Unmarshal(created.Result, &ref))
	require.Equal(t, http.StatusOK, do(t, gw, "PUT", "/v2/accounts/"+ref.ID, `{"rating":"Hot"}`, "").Status)
	got := do(t, gw, "GET", "/v3/accounts/"+ref.ID, "", "")
	assert.JSONEq(t, `{"name":null}`, string(got.Result), fmt.Sprintf("replace lost the name: %s", got.Raw))
}
