package accounts_test

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	upaccounts "github.com/restgate/gateway/upstreams/accounts"
)

const (
	idA = "001000000000001AAA"
	idB = "001000000000002AAA"
)

const success = `{"status":"success"}`

// contractCase is one cell of the accounts table: a gateway request, the
// backend's script, and what the client and the backend must see.
type contractCase struct {
	desc         string
	method, path string
	body, roles  string
	script       map[string][]reply
	concurrent   bool // upstream requests may arrive in any order
	wantUpstream []string
	wantStatus   int
	wantCode     string
	wantMessage  string // a part of the client message
	wantResult   string // JSON; checked when set
	wantPage     string // the page member as JSON; checked when set
	noPage       bool   // the answer must have no page member
	wantAllow    string
	// backend is the adapter's options; zero: the reference controller's.
	backend *upaccounts.Options
}

// runContract runs each case against its own strict backend.
func runContract(t *testing.T, tests []contractCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			backend, url := newStrictBackend(t, tt.script)
			opts := reference
			if tt.backend != nil {
				opts = *tt.backend
			}
			gw := newGatewayFor(t, url, accounts.Options{}, opts)
			a := do(t, gw, tt.method, tt.path, tt.body, tt.roles)
			assert.Equal(t, tt.wantStatus, a.Status, "answer: %s", a.Raw)
			assert.Equal(t, tt.wantCode, a.ResponseCode.ID, "answer: %s", a.Raw)
			assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.wantMessage)
			if tt.wantResult != "" {
				assert.JSONEq(t, tt.wantResult, string(a.Result))
			}
			if tt.noPage {
				assert.Nil(t, a.Page, "the whole list is part of nothing longer")
			}
			if tt.wantPage != "" {
				assert.JSONEq(t, tt.wantPage, string(a.Page), "answer: %s", a.Raw)
			}
			if tt.wantAllow != "" {
				assert.Equal(t, tt.wantAllow, a.Header.Get("Allow"))
			}
			assert.Equal(t, testUser, a.UserID)
			want := tt.wantUpstream
			if want == nil {
				want = []string{}
			}
			got := backend.requests(tt.concurrent)
			if tt.concurrent {
				want = sortedCopy(want)
			}
			assert.Equal(t, want, got)
		})
	}
}

// TestEnvelopeFlags checks the envelope's mapKeysFlag and serializeNulls per
// version, answers of a fixed shape included.
func TestEnvelopeFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, version string
		wantNulls     bool
	}{
		{desc: "v1 removes nulls", version: "v1", wantNulls: true},
		{desc: "v2 removes nulls", version: "v2", wantNulls: true},
		{desc: "v3 keeps nulls", version: "v3", wantNulls: false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, url := newStrictBackend(t, map[string][]reply{
				"GET /api/v1/account/":               {{200, `[]`}},
				`POST /api/v1/account/ {"Name":"A"}`: {{200, `{"id":"` + idA + `"}`}},
			})
			gw := newGateway(t, url, accounts.Options{})
			for _, a := range []handlertest.Answer{
				do(t, gw, http.MethodGet, "/"+tt.version+"/accounts", "", ""),
				do(t, gw, http.MethodPost, "/"+tt.version+"/accounts", `{"name":"A"}`, ""),
			} {
				require.NotNil(t, a.MapKeysFlag, "answer: %s", a.Raw)
				require.NotNil(t, a.DropNulls)
				assert.True(t, *a.MapKeysFlag)
				assert.Equal(t, tt.wantNulls, *a.DropNulls)
			}
		})
	}
}

// manyItems is a bulk-update body of n accounts.
func manyItems(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`{"id":%q,"name":"n%d"}`, manyItemID(i), i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// manyItemID is the id of the i-th item of manyItems.
func manyItemID(i int) string { return fmt.Sprintf("001%012dAAA", i) }

func sortedCopy(in []string) []string {
	out := append([]string{}, in...)
	sort.Strings(out)
	return out
}
