package call

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/restgate/gateway/gateway/envelope"
)

// ParseQuery parses the request's query strictly. url.URL.Query drops a
// parameter it cannot decode (limit=%zz) without a word, which would turn
// a bad paging or filter parameter into none at all; here it is a
// PARAMETER_INVALID 400 naming the parameter instead.
func ParseQuery(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err == nil {
		return q, nil
	}
	name := "query"
	for pair := range strings.SplitSeq(r.URL.RawQuery, "&") {
		key, value, _ := strings.Cut(pair, "=")
		_, kerr := url.QueryUnescape(key)
		_, verr := url.QueryUnescape(value)
		if kerr == nil && verr == nil && !strings.Contains(pair, ";") {
			continue
		}
		name = key
		if unescaped, err := url.QueryUnescape(key); err == nil {
			name = unescaped
		}
		break
	}
	e := envelope.InvalidParameter(clip(name), "is not validly percent-encoded")
	e.Cause = err
	return nil, e
}

// clip bounds a parameter name quoted back to the client.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "..."
}
