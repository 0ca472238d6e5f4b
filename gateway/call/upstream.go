package call

import (
	"errors"
	"time"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/upstreams"
)

// Reasons of the org's allowance, the detail of their CALLOUT_FAILED 503:
// what the client can act on (wait, or ask for an essential key), never
// the org's figures.
const (
	// ReservedDetail: the call was refused before it reached the backend
	// (upstreams.KindReserved).
	ReservedDetail = "the org's API allowance is reserved for essential calls"
	// ExceededDetail: the org answered REQUEST_LIMIT_EXCEEDED.
	ExceededDetail = "the org's API request limit is exceeded"
)

// Upstream converts an adapter's error to the answer the client gets. A
// backend's rejection (4xx) becomes rejectedID (SOBJECT_OPERATION_FAILED,
// QUERY_OPERATION_FAILED, SEARCH_FAILED ...) with the backend's status and
// its reason, made safe, as the detail of the client message; every
// other failure is CALLOUT_FAILED with the status of upstreams.StatusFor:
// 502 failed (the gateway's credentials refused, a retired API version
// included), 504 timeout, 503 open breaker, rate-limited backend or
// reserved allowance (with Retry-After, and for the org's allowance a
// detail saying so) or full bulkhead, 499 when the client itself went away.
// Errors that are not upstream errors pass through unchanged.
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
	if ue.Kind == upstreams.KindOpen || ue.Kind == upstreams.KindLimited || ue.Kind == upstreams.KindReserved {
		secs := int((ue.RetryAfter + time.Second - 1) / time.Second) // whole seconds, rounded up
		e.RetryAfter = max(secs, 1)
	}
	switch {
	case ue.Kind == upstreams.KindReserved:
		e.Detail = ReservedDetail
	case ue.Kind == upstreams.KindLimited && ue.Code == upstreams.CodeRequestLimitExceeded:
		e.Detail = ExceededDetail
	}
	if ue.Kind == upstreams.KindBulkheadFull {
		e.RetryAfter = 1
	}
	return e
}
