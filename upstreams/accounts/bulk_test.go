package accounts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

func TestDeleteAll(t *testing.T) {
	t.Parallel()
	list := func(reply string) wantCall {
		return wantCall{method: "GET", path: "/api/v1/account/", status: 200, reply: reply}
	}
	del := func(id string, status int, reply string) wantCall {
		return wantCall{method: "DELETE", path: "/api/v1/account/" + id, status: status, reply: reply}
	}
	two := `[{"Id":"` + idA + `","Name":"A"},{"Id":"` + idB + `","Name":"B"}]`
	tests := []struct {
		desc         string
		calls        []wantCall
		deleted      int
		kind         upstreams.Kind
		unidentified bool
	}{
		{desc: "nothing to delete", calls: []wantCall{list(`[]`)}},
		{desc: "two rounds", deleted: 2, calls: []wantCall{
			list(`[{"Id":"` + idA + `"}]`), del(idA, 200, `{status: success}`),
			list(`[{"Id":"` + idB + `"}]`), del(idB, 200, `{"status":"success"}`),
			list(`[]`),
		}},
		{desc: "stops at the first failed delete", deleted: 1, kind: upstreams.KindFailed, calls: []wantCall{
			list(two), del(idA, 200, `{status: success}`), del(idB, 500, `boom`),
		}},
		{desc: "stops at a refused delete", deleted: 0, kind: upstreams.KindRejected, calls: []wantCall{
			list(two), del(idA, 200, `{status : failure}`),
		}},
		{desc: "stops when a deleted account is listed again", deleted: 2, kind: upstreams.KindInvalid, calls: []wantCall{
			list(two), del(idA, 200, `{status: success}`), del(idB, 200, `{status: success}`), list(two),
		}},
		{desc: "the original's name-only records: nothing deleted", unidentified: true,
			calls: []wantCall{list(`[{"Id":"` + idA + `","Name":"A"},{"Name":"B"}]`)}},
		{desc: "list fails", kind: upstreams.KindFailed, calls: []wantCall{
			{method: "GET", path: "/api/v1/account/", status: 502, reply: ``},
		}},
	}
	for _, tt := range tests {
		for _, paging := range []Paging{PagingBackend, PagingAdapter} {
			t.Run(tt.desc+", paging "+string(paging), func(t *testing.T) {
				t.Parallel()
				srv := strictBackend(t, tt.calls...)
				deleted, err := New(srv.URL, srv.Client(), Options{Paging: paging}).DeleteAll(t.Context())
				assert.Equal(t, tt.deleted, deleted)
				switch {
				case tt.unidentified:
					assert.ErrorIs(t, err, ErrUnidentified)
				case tt.kind == 0:
					require.NoError(t, err)
				default:
					ue := upstreams.AsError(err)
					require.NotNil(t, ue, "%v", err)
					assert.Equal(t, tt.kind, ue.Kind)
				}
			})
		}
	}
}

func TestRecordIDs(t *testing.T) {
	t.Parallel()
	ids, err := recordIDs([]byte(`[{"Id":"` + idA + `"},{"id":"` + idB + `"}]`))
	require.NoError(t, err)
	assert.Equal(t, []string{idA, idB}, ids)

	_, err = recordIDs([]byte(`[{"Name":"only a name"}]`))
	assert.ErrorIs(t, err, ErrUnidentified)
	_, err = recordIDs([]byte(`[1]`))
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, upstreams.KindInvalid, ue.Kind)
}

func TestParseOptions(t *testing.T) {
	t.Parallel()
	o, errs := ParseOptions(nil)
	assert.Empty(t, errs)
	assert.Equal(t, Options{Paging: PagingAdapter, Update: UpdateMerge}, o)
	o, errs = ParseOptions(map[string]string{"paging": "backend", "update": "replace"})
	assert.Empty(t, errs)
	assert.Equal(t, Options{Paging: PagingBackend, Update: UpdateReplace}, o)
	_, errs = ParseOptions(map[string]string{"paging": "guess", "update": "patch", "pageSize": "10"})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	assert.Equal(t, []string{
		"pageSize: unknown option of an accounts upstream; known: paging, update",
		`paging: must be backend or adapter, not "guess"`,
		`update: must be merge or replace, not "patch"`,
	}, got)
}
