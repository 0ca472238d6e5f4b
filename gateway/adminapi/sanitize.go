package adminapi

import (
	"net/url"
	"sort"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// masked replaces every query value of a shown URL.
const masked = "***"

// safeURL is raw as the console may show it: without user info, with
// every query value masked (any of them may be a key: a signature, an API
// key, a SAS token) and no fragment. A value that is not a URL is shown
// as its scheme and host at most, or not at all; "sandbox" (the embedded
// sandbox) as it is.
func safeURL(raw string) string {
	if raw == "" {
		return ""
	}
	if _, ok := upstreams.SandboxFlavour(raw); ok {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(not a URL)"
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	if u.RawQuery != "" {
		q := u.Query()
		names := make([]string, 0, len(q))
		for name := range q {
			names = append(names, url.QueryEscape(name)+"="+masked)
		}
		sort.Strings(names)
		u.RawQuery = strings.Join(names, "&")
	}
	return u.String()
}
