package dataapi

// BusinessRefusal reports which 403 answers of a Salesforce org (data API
// and Connect) refuse the request for the record or subject the caller
// chose, so they reach the client as a 403 and are not counted by the
// breaker: the integration user lacks access to that record
// (INSUFFICIENT_ACCESS_OR_READONLY, INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY,
// INSUFFICIENT_ACCESS) or may not post on that subject
// (INSUFFICIENT_PRIVILEGES, Connect's code). Counting them would let any
// client trip the breaker for everyone by asking for records it may not see.
//
// Every other 403 (API_DISABLED_FOR_ORG, API_CURRENTLY_DISABLED, a 403
// without a code from an API gateway in front refusing the gateway's key)
// says the gateway's own credentials or permissions are wrong: it is
// CALLOUT_FAILED 502 and counted. REQUEST_LIMIT_EXCEEDED, also a 403, is a
// rate limit whatever this says (upstreams.ClassifyStatus).
//
// Its shape is upstreams.BusinessRefusal.
func BusinessRefusal(code, _ string) bool {
	switch code {
	case "INSUFFICIENT_ACCESS_OR_READONLY", "INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY",
		"INSUFFICIENT_ACCESS", "INSUFFICIENT_PRIVILEGES":
		return true
	}
	return false
}
