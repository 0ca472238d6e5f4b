package dataapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/dataapi"
)

func TestLocator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want string
		ok   bool
	}{
		{desc: "real shape", in: "/services/data/v35.0/query/01gD0000002HU6KIAW-2000", want: "01gD0000002HU6KIAW-2000", ok: true},
		{desc: "absolute URL", in: "https://na1.example.com/services/data/v52.0/query/01gRO0000016PIAYA2-500", want: "01gRO0000016PIAYA2-500", ok: true},
		{desc: "sandbox locator", in: "/services/data/v35.0/query/01gU0VMRUNU_-x-5", want: "01gU0VMRUNU_-x-5", ok: true},
		{desc: "not a query", in: "/services/data/v35.0/sobjects/Account", ok: false},
		{desc: "no locator", in: "/services/data/v35.0/query/", ok: false},
		{desc: "extra segment", in: "/services/data/v35.0/query/01g-1/x", ok: false},
		{desc: "bad version", in: "/services/data/35.0/query/01g-1", ok: false},
		{desc: "query string", in: "/services/data/v35.0/query/01g-1?q=x", ok: false},
		{desc: "escaped slash", in: "/services/data/v35.0/query/01g%2F..-1", ok: false},
		{desc: "other prefix", in: "/api/services/data/v35.0/query/01g-1", ok: false},
		{desc: "empty", in: "", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, ok := dataapi.Locator(tt.in)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzLocator(f *testing.F) {
	f.Add("/services/data/v35.0/query/01gD0000002HU6KIAW-2000")
	f.Add("https://x/services/data/v35.0/query/01g-1")
	f.Add("/services/data/v35.0/query/01g%2F-1")
	f.Add("%")
	f.Fuzz(func(t *testing.T, in string) {
		loc, ok := dataapi.Locator(in)
		if !ok {
			require.Empty(t, loc)
			return
		}
		require.NotEmpty(t, loc)
		require.Equal(t, -1, strings.IndexFunc(loc, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		}), "locator %q carries a character that changes a path", loc)
		again, ok := dataapi.Locator("/services/data/v35.0/query/" + loc)
		require.True(t, ok)
		require.Equal(t, loc, again)
	})
}
