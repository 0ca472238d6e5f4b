package call

import (
	"errors"
	"time"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/upstreams"
)

// Upstream converts an adapter's error to the answer the client gets. A
// backend's rejection (4xx) becomes rejectedID (SOBJECT_OPERATION_FAILED,
// QUERY_OPERATION_FAILED, SEARCH_FAILED ...) with the backend's status and
// its reason, made safe, as the detail of the client message; every
// other failure is CALLOUT_FAILED with the status of upstreams.StatusFor:
// 502 failed (the gateway's credentials refused, a retired API version
// included), 504 timeout, 503 open breaker or rate-limited backend (both
// with Retry-After) or full bulkhead, 499 when the client itself went away. Errors that are not
// upstream errors pass through unchanged.
func Upstream(err error, rejectedID string) error {
	if err == nil {
		return nil
	}
	var ee *envelope.Error
	if errors.As(err, &ee) {
		return err
	}
	ue := upstreams.AsError(err)
	if ue == nil {
		return err
	}
	if ue.Kind == upstreams.KindRejected {
		// The client caused the rejection and can act on its reason: the
		// backend's message, made safe (envelope.ClientReason), follows
		// the client message.
		return &envelope.Error{ID: rejectedID, Status: ue.Status, Cause: err,
			Detail: envelope.ClientReason(ue.Code, ue.Message)}
	}
	e := &envelope.Error{ID: envelope.CalloutFailed, Status: upstreams.StatusFor(err), Cause: err}
	if ue.Kind == upstreams.KindOpen || ue.Kind == upstreams.KindLimited {
		secs := int((ue.RetryAfter + time.Second - 1) / time.Second) // whole seconds, rounded up
		e.RetryAfter = max(secs, 1)
	}
	if ue.Kind == upstreams.KindBulkheadFull {
		e.RetryAfter = 1
	}
	return e
}
