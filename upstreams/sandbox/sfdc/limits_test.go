package sfdc

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A request stops counting a day after it was made: the window rolls.
func TestUsageRollsOver24Hours(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	o := NewOrg(OrgOptions{DailyAPIRequests: 3})
	o.now = func() time.Time { return now }
	do := func(path string) int {
		rr := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Authorization", "Bearer "+DefaultStaticToken)
		if o.Authorize(rr, r) {
			return http.StatusOK
		}
		return rr.Code
	}
	assert.Equal(t, http.StatusOK, do("/services/data/v62.0/sobjects"))
	now = now.Add(6 * time.Hour)
	assert.Equal(t, http.StatusOK, do("/services/data/v62.0/sobjects"))
	assert.Equal(t, http.StatusOK, do("/services/data/v62.0/sobjects"))
	assert.Equal(t, http.StatusForbidden, do("/services/data/v62.0/sobjects"), "3 of 3 used")
	assert.Equal(t, http.StatusOK, do("/services/data/"), "the versions resource is free")
	now = now.Add(18*time.Hour + time.Minute)
	assert.Equal(t, http.StatusOK, do("/services/data/v62.0/sobjects"), "the first request left the window")
	used, limit := o.Usage()
	assert.Equal(t, [2]int64{3, 3}, [2]int64{used, limit})
	now = now.Add(24 * time.Hour)
	used, _ = o.Usage()
	assert.Zero(t, used, "a day later nothing counts")
}
