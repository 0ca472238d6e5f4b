package accounts

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/envelope"
	upaccounts "github.com/restgate/gateway/upstreams/accounts"
)

func TestParsePage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc      string
		query     string
		want      *upaccounts.Page
		wantParam string // the parameter a 400 names; "" when accepted
	}{
		{desc: "neither", query: "", want: nil},
		{desc: "both", query: "limit=10&offset=20", want: &upaccounts.Page{Limit: 10, Offset: 20}},
		{desc: "zeros", query: "limit=0&offset=0", want: &upaccounts.Page{}},
		{desc: "limit at the maximum", query: "limit=2000&offset=5", want: &upaccounts.Page{Limit: 2000, Offset: 5}},
		{desc: "limit only pages from offset 0", query: "limit=10", want: &upaccounts.Page{Limit: 10}},
		{desc: "offset only is the rest", query: "offset=10", want: &upaccounts.Page{Limit: -1, Offset: 10}},
		{desc: "empty limit counts as absent", query: "limit=&offset=3", want: &upaccounts.Page{Limit: -1, Offset: 3}},
		{desc: "both empty", query: "limit=&offset=", want: nil},
		{desc: "other parameters are not ours", query: "limit=1&offset=1&q=x", want: &upaccounts.Page{Limit: 1, Offset: 1}},
		{desc: "negative limit", query: "limit=-1&offset=0", wantParam: "limit"},
		{desc: "signed offset", query: "limit=1&offset=+1", wantParam: "offset"},
		{desc: "exponent", query: "limit=1e2&offset=0", wantParam: "limit"},
		{desc: "spaces", query: "limit=%201&offset=0", wantParam: "limit"},
		{desc: "above the maximum", query: "limit=2001&offset=0", wantParam: "limit"},
		{desc: "overflowing offset", query: "limit=1&offset=99999999999999999999", wantParam: "offset"},
		{desc: "malformed alone", query: "offset=abc", wantParam: "offset"},
		{desc: "repeated", query: "limit=1&offset=1&offset=2", wantParam: "offset"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			q, err := url.ParseQuery(tt.query)
			require.NoError(t, err)
			page, err := parsePage(q, 2000)
			if tt.wantParam != "" {
				var ee *envelope.Error
				require.ErrorAs(t, err, &ee)
				assert.Equal(t, envelope.ParameterInvalid, ee.ID)
				assert.Equal(t, tt.wantParam, ee.Args[0])
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, page)
		})
	}
}

// FuzzParsePage: whatever the query, a page is either refused or holds the
// very numbers the client wrote, within bounds.
func FuzzParsePage(f *testing.F) {
	for _, s := range [][2]string{{"10", "20"}, {"", "1"}, {"-1", "0"}, {"2001", "0"}, {"1e3", "0"}, {"007", "00"}, {"9999999999", "1"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, limit, offset string) {
		page, err := parsePage(url.Values{"limit": {limit}, "offset": {offset}}, 2000)
		if err != nil {
			assert.Nil(t, page)
			return
		}
		if page == nil {
			assert.True(t, limit == "" && offset == "")
			return
		}
		assert.True(t, page.Limit >= -1 && page.Limit <= 2000 && page.Offset >= 0 && page.Offset <= maxOffset)
		l, err := strconv.Atoi(limit)
		if limit == "" {
			l, err = -1, nil
		}
		require.NoError(t, err)
		o, _ := strconv.Atoi(offset)
		assert.Equal(t, l, page.Limit)
		assert.Equal(t, o, page.Offset)
	})
}

// FuzzPrepareItem: an item is either refused with a coded 4xx, or sent
// with a valid id and a JSON object of fields that no longer holds the id.
func FuzzPrepareItem(f *testing.F) {
	for _, s := range []string{`{"Id":"001000000000001AAA","Name":"x"}`, `{"Id":null}`, `{"Id":7}`, `{}`, `[]`, `"x"`,
		`{"Id":"001000000000001","Rating":{"a":[1,null]}}`, `{"Id":"bad id"}`, `{"Id":"001000000000001AAA","Id":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, elem []byte) {
		if !json.Valid(elem) {
			return // the whole body was validated before items are split
		}
		item, res := prepareItem(elem, map[string]bool{})
		if res.StatusCode != 0 {
			assert.Equal(t, http.StatusBadRequest, res.StatusCode)
			require.Len(t, res.Errors, 1)
			assert.NotEmpty(t, res.Errors[0].ErrorCode)
			return
		}
		assert.True(t, upaccounts.ValidID(item.id))
		assert.Equal(t, item.id, res.ID)
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(item.fields, &fields))
		assert.NotContains(t, fields, idField)
	})
}

func TestPrepareItemDuplicates(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	_, first := prepareItem([]byte(`{"Id":"001000000000001AAA"}`), seen)
	_, short := prepareItem([]byte(`{"Id":"001000000000001"}`), seen)
	_, suffix := prepareItem([]byte(`{"Id":"001000000000001BBB"}`), seen)
	_, other := prepareItem([]byte(`{"Id":"001000000000002AAA"}`), seen)
	assert.Equal(t, 0, first.StatusCode)
	require.Len(t, short.Errors, 1)
	assert.Equal(t, ItemDuplicateID, short.Errors[0].ErrorCode, "the 15-character form is the same account")
	require.Len(t, suffix.Errors, 1)
	assert.Equal(t, ItemDuplicateID, suffix.Errors[0].ErrorCode, "the suffix is a checksum of the first 15 characters")
	assert.Equal(t, 0, other.StatusCode)
}
