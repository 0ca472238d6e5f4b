package dataapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/restgate/gateway/upstreams"
)

// Limits reads the org's daily API requests from the limits resource
// (GET /services/data/{apiVersion}/limits, REST API 29.0 and later, for a
// user with the View Setup and Configuration permission):
// {"DailyApiRequests": {"Max": 15000, "Remaining": 14998}, ...}, used =
// Max - Remaining. The call is itself one API request of the allowance.
// Early versions sent the figures as strings ("Max": "5000"); both are
// read. An answer without them is KindInvalid.
func (c *Client) Limits(ctx context.Context) (upstreams.Usage, error) {
	body, err := c.get(ctx, c.path("/limits"), nil)
	if err != nil {
		return upstreams.Usage{}, err
	}
	var doc struct {
		DailyAPIRequests struct {
			Max       figure `json:"Max"`
			Remaining figure `json:"Remaining"`
		} `json:"DailyApiRequests"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.DailyAPIRequests.Max <= 0 || doc.DailyAPIRequests.Remaining < 0 {
		return upstreams.Usage{}, &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindInvalid,
			Message: "the limits resource has no DailyApiRequests {Max, Remaining}"}
	}
	d := doc.DailyAPIRequests
	return upstreams.Usage{Used: max(int64(d.Max-d.Remaining), 0), Limit: int64(d.Max)}, nil
}

// figure is a whole number given as a JSON number or string.
type figure int64

func (f *figure) UnmarshalJSON(b []byte) error {
	n, err := strconv.ParseInt(string(bytes.Trim(b, `"`)), 10, 64)
	*f = figure(n)
	return err
}
