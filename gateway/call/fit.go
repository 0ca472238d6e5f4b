package call

import (
	"strconv"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams/jsonspan"
)

// tooLong is the answer to a list result that reached the output limit
// (mapping.maxOutputChars) when the handler named the parameter that
// bounds the list (Result.SizeParam): PARAMETER_INVALID 400 naming it,
// with the largest value that fits, so that a client that asked for too
// much (or for the whole list) learns what to ask for instead of getting
// a 500. It maps the list's items one by one, as the writer would, and
// counts those that fit; only a refused answer pays for that.
func tooLong(res Result, opts mapping.Options, err error) error {
	limit := opts.MaxOutput
	if limit == 0 {
		limit = mapping.DefaultMaxOutput
	}
	opts.MaxOutput = -1
	used, fit := len("[]"), 0
	var scratch []byte
	ok := jsonspan.Array(res.JSON, func(elem []byte) {
		if used >= limit {
			return
		}
		out, rerr := mapping.Rewrite(scratch[:0], elem, opts)
		scratch = out
		sep := 0
		if fit > 0 {
			sep = 1
		}
		if rerr != nil || used+sep+len(out) >= limit {
			used = limit
			return
		}
		used += sep + len(out)
		fit++
	})
	if !ok {
		return serializationError(err)
	}
	e := envelope.InvalidParameter(res.SizeParam, "the list does not fit in one answer (mapping.maxOutputChars "+
		strconv.Itoa(limit)+" bytes); ask for at most "+strconv.Itoa(fit)+" items")
	e.Cause = err
	return e
}
