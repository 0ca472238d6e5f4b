package call

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/envelope"
)

func TestParseQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query     string
		wantParam string // "" when valid
	}{
		{query: "limit=20&offset=0"},
		{query: ""},
		{query: "limit=%zz", wantParam: "limit"},
		{query: "offset=1&li%zzmit=2", wantParam: "li%zzmit"},
		{query: "a=1;b=2", wantParam: "a"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/v2/accounts?"+tt.query, nil)
		q, err := ParseQuery(r)
		if tt.wantParam == "" {
			require.NoError(t, err, tt.query)
			assert.NotNil(t, q)
			continue
		}
		var ee *envelope.Error
		require.True(t, errors.As(err, &ee), tt.query)
		assert.Equal(t, envelope.ParameterInvalid, ee.ID)
		assert.Equal(t, []string{tt.wantParam, "is not validly percent-encoded"}, ee.Args, tt.query)
	}
}
