package dataapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// The answers of the limits resource as the REST API Developer Guide shows
// them ("List Organization Limits"): numbers since about API 34.0, strings
// in the v29.0 example.
func TestLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, body string
		want       upstreams.Usage
		invalid    bool
	}{
		{desc: "numbers", body: `{"ConcurrentAsyncGetReportInstances":{"Max":200,"Remaining":200},
			"DailyApiRequests":{"Max":15000,"Remaining":14998},"DailyAsyncApexExecutions":{"Max":250000,"Remaining":250000}}`,
			want: upstreams.Usage{Used: 2, Limit: 15000}},
		{desc: "strings", body: `{"DailyApiRequests":{"Remaining":"4980","Max":"5000"},"DataStorageMB":{"Remaining":5,"Max":5}}`,
			want: upstreams.Usage{Used: 20, Limit: 5000}},
		{desc: "no daily requests", body: `{"DataStorageMB":{"Remaining":5,"Max":5}}`, invalid: true},
		{desc: "not a number", body: `{"DailyApiRequests":{"Remaining":"many","Max":5000}}`, invalid: true},
		{desc: "not JSON", body: `<html>`, invalid: true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			srv, calls := strictFake(t, "/services/data/v62.0/limits", "", tc.body)
			c, err := dataapi.New(srv.URL, "v62.0", srv.Client())
			require.NoError(t, err)
			got, err := c.Limits(context.Background())
			assert.Equal(t, int32(1), calls.Load())
			if tc.invalid {
				ue := upstreams.AsError(err)
				require.NotNil(t, ue)
				assert.Contains(t, []upstreams.Kind{upstreams.KindInvalid}, ue.Kind)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
