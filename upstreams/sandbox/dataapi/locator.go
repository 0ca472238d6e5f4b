package dataapi

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/soql"
)

// A query locator is "01g" + the query, base64url-encoded, + "-" + the
// position of the next record. It carries the whole query, so the sandbox
// keeps no cursor state and any replica can continue any query; a client
// that edits one only gets the answer to another query it could have sent.
const queryLocatorPrefix = "01g"

func encodeQueryLocator(q soql.Query, pos int) string {
	return queryLocatorPrefix + base64.RawURLEncoding.EncodeToString([]byte(q.String())) + "-" + strconv.Itoa(pos)
}

func decodeQueryLocator(locator string) (soql.Query, int, bool) {
	rest, ok := strings.CutPrefix(locator, queryLocatorPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i < 0 {
		return soql.Query{}, 0, false
	}
	pos, err := strconv.Atoi(rest[i+1:])
	if err != nil || pos < 0 || rest[i+1] == '+' {
		return soql.Query{}, 0, false
	}
	text, err := base64.RawURLEncoding.DecodeString(rest[:i])
	if err != nil {
		return soql.Query{}, 0, false
	}
	q, err := soql.ParseQuery(string(text))
	if err != nil {
		return soql.Query{}, 0, false
	}
	return q, pos, true
}
