package accounts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

func TestDeleteAll(t *testing.T) {
	t.Parallel()
	page := func(reply string) wantCall {
		return wantCall{method: "GET", path: "/api/v1/account/", query: "limit=200&offset=0", status: 200, reply: reply}
	}
	del := func(id string, status int, reply string) wantCall {
		return wantCall{method: "DELETE", path: "/api/v1/account/" + id, status: status, reply: reply}
	}
	two := `[{"Id":"` + idA + `","Name":"A"},{"Id":"` + idB + `","Name":"B"}]`
	tests := []struct {
		desc    string
		calls   []wantCall
		deleted int
		kind    upstreams.Kind
	}{
		{desc: "nothing to delete", calls: []wantCall{page(`[]`)}},
		{desc: "two pages", deleted: 2, calls: []wantCall{
			page(`[{"Id":"` + idA + `"}]`), del(idA, 200, `{status: success}`),
			page(`[{"Id":"` + idB + `"}]`), del(idB, 200, `{"status":"success"}`),
			page(`[]`),
		}},
		{desc: "stops at the first failed delete", deleted: 1, kind: upstreams.KindFailed, calls: []wantCall{
			page(two), del(idA, 200, `{status: success}`), del(idB, 500, `boom`),
		}},
		{desc: "stops at a refused delete", deleted: 0, kind: upstreams.KindRejected, calls: []wantCall{
			page(two), del(idA, 200, `{status : failure}`),
		}},
		{desc: "stops when a deleted account is listed again", deleted: 2, kind: upstreams.KindInvalid, calls: []wantCall{
			page(two), del(idA, 200, `{status: success}`), del(idB, 200, `{status: success}`), page(two),
		}},
		{desc: "records without ids", kind: upstreams.KindInvalid, calls: []wantCall{page(`[{"Name":"A"}]`)}},
		{desc: "list fails", kind: upstreams.KindFailed, calls: []wantCall{
			{method: "GET", path: "/api/v1/account/", query: "limit=200&offset=0", status: 502, reply: ``},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := strictBackend(t, tt.calls...)
			deleted, err := New(srv.URL, srv.Client()).DeleteAll(t.Context())
			assert.Equal(t, tt.deleted, deleted)
			if tt.kind == 0 {
				require.NoError(t, err)
				return
			}
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "%v", err)
			assert.Equal(t, tt.kind, ue.Kind)
		})
	}
}

func TestRecordIDs(t *testing.T) {
	t.Parallel()
	ids, err := recordIDs([]byte(`[{"Id":"` + idA + `"},{"id":"` + idB + `"}]`))
	require.NoError(t, err)
	assert.Equal(t, []string{idA, idB}, ids)

	_, err = recordIDs([]byte(`[{"Name":"only a name"}]`))
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, upstreams.KindInvalid, ue.Kind)
	assert.Zero(t, ue.Status)
}
