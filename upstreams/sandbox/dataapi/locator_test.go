package dataapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/soql"
)

func FuzzQueryLocator(f *testing.F) {
	q, err := soql.ParseQuery("SELECT Id, Name FROM Account WHERE Name = 'a-b' ORDER BY Name LIMIT 7")
	require.NoError(f, err)
	f.Add(encodeQueryLocator(q, 5))
	f.Add("01g-1")
	f.Add("01gAAAA-+3")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, locator string) {
		q, pos, ok := decodeQueryLocator(locator)
		if !ok {
			return
		}
		require.GreaterOrEqual(t, pos, 0)
		q2, pos2, ok := decodeQueryLocator(encodeQueryLocator(q, pos))
		require.True(t, ok)
		assert.Equal(t, q, q2)
		assert.Equal(t, pos, pos2)
	})
}
