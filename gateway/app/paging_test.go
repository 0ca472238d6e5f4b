package app

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// TestListOverTheOutputLimit: an account list longer than
// mapping.maxOutputChars is never a 500. Asked with a limit that does not
// fit, or without one, it is PARAMETER_INVALID naming limit with the
// largest limit that fits; that limit then fits, and one more does not.
func TestListOverTheOutputLimit(t *testing.T) {
	t.Parallel()
	h := sandboxGatewayWith(t, config.HTTP1Fast, nil)
	for i := range 120 {
		rec := httptest.NewRecorder()
		body := fmt.Sprintf(`{"name":"Paging %03d","description":%q}`, i, strings.Repeat("long description ", 25))
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v2/accounts", strings.NewReader(body)))
		require.Equal(t, 201, rec.Code, rec.Body.String())
	}
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	most := regexp.MustCompile(`Invalid parameter limit: the list does not fit in one answer \(mapping.maxOutputChars 50000 bytes\); ask for at most (\d+) items`)
	for _, path := range []string{"/v2/accounts?limit=2000", "/v2/accounts?limit=120&offset=0", "/v2/accounts"} {
		rec := get(path)
		require.Equal(t, 400, rec.Code, "%s: %s", path, rec.Body.String())
		assert.Contains(t, rec.Body.String(), `"id":"PARAMETER_INVALID"`, path)
		require.Regexp(t, most, rec.Body.String(), path)
	}
	n, err := strconv.Atoi(most.FindStringSubmatch(get("/v2/accounts?limit=2000").Body.String())[1])
	require.NoError(t, err)
	require.Greater(t, n, 10)
	fits := get("/v2/accounts?limit=" + strconv.Itoa(n))
	require.Equal(t, 200, fits.Code, fits.Body.String())
	assert.Contains(t, fits.Body.String(), `"page":{"start":0,"size":`+strconv.Itoa(n))
	assert.Equal(t, 400, get("/v2/accounts?limit="+strconv.Itoa(n+1)).Code, "one more does not fit")
}
