package proxy

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/restgate/gateway/mapping"
)

// hostLinks removes, from the answers of a backend at baseURL, every string
// member that is an address on that backend (its scheme and host: a
// Flowable task's url, processDefinitionUrl ...): a client cannot call it,
// and it names an internal host. Other strings are kept as they are. Nil
// when baseURL has no host.
func hostLinks(baseURL string) *mapping.Links {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return nil
	}
	origin := []byte(`"` + u.Scheme + "://" + u.Host)
	return &mapping.Links{Value: func(dst []byte, _ string, raw []byte) ([]byte, bool, error) {
		if onBackend(raw, origin) {
			return dst, false, nil
		}
		return append(dst, raw...), true, nil
	}}
}

// onBackend reports whether the JSON string raw is an address under
// origin (a quote, scheme and host), its escapes decoded first.
func onBackend(raw, origin []byte) bool {
	if bytes.IndexByte(raw, '\\') >= 0 {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		raw = []byte(`"` + s + `"`)
	}
	if !bytes.HasPrefix(raw, origin) {
		return false
	}
	rest := string(raw[len(origin):])
	return strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, `"`) || strings.HasPrefix(rest, "?")
}
