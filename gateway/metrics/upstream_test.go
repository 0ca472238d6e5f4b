package metrics

import "github.com/restgate/gateway/upstreams"

// The shared upstream client reports to an upstreams.Observer; *Metrics is
// the one the gateway hands it.
var _ upstreams.Observer = (*Metrics)(nil)
