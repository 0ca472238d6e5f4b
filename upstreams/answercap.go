package upstreams

import (
	"errors"
	"strconv"
)

// ErrAnswerTooLarge is the Err of the *Error (KindInvalid, 502) of an
// answer larger than its call's cap: refused as soon as its Content-Length
// says so, before a byte of its body is read, or as soon as the bytes read
// pass the cap. The connection is closed rather than drained, and the
// breaker does not count it: the backend answered, only more than the
// route can use.
var ErrAnswerTooLarge = errors.New("the answer is larger than its cap")

// answerCap is the cap of a call's answer: the route's (CallOptions.MaxAnswer)
// when it has one, else the upstream's maxAnswerBytes.
func (c *Client) answerCap(opts CallOptions) int64 {
	if opts.MaxAnswer > 0 {
		return opts.MaxAnswer
	}
	return c.s.MaxAnswerBytes
}

// options are the call's per-route options; the zero value when its
// context carries no CallState.
func (k *call) options() CallOptions {
	if k.state == nil {
		return CallOptions{}
	}
	return k.state.Options
}

// answerTooLarge is the error of an answer over limit bytes.
func answerTooLarge(upstream string, limit int64) *Error {
	return &Error{Upstream: upstream, Kind: KindInvalid, Err: ErrAnswerTooLarge,
		Message: "the answer is over the " + strconv.FormatInt(limit, 10) +
			" bytes this route accepts (maxAnswerBytes of the route, else of the upstream)"}
}
