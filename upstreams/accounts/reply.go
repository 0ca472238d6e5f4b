package accounts

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/jsonspan"
)

// ValidID reports whether id has the form of an account id: 15 or 18 ASCII
// letters and digits. The client refuses other ids before any call, so a
// path can never be smuggled through an id.
func ValidID(id string) bool {
	if len(id) != 15 && len(id) != 18 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

func checkID(id string) error {
	if !ValidID(id) {
		return rejected("invalid account id " + upstreams.TrimMessage(id))
	}
	return nil
}

// checkStatus reads an update or delete answer: {"status": "success"} or the
// original service's {status: success}; failure is a 400 rejection.
func checkStatus(reply []byte, op string) error {
	status, ok := replyField(reply, "status")
	switch {
	case ok && strings.EqualFold(status, "success"):
		return nil
	case ok && strings.EqualFold(status, "failure"):
		return upstreams.NewStatusError(Name, http.StatusBadRequest, "", "account "+op+" failed")
	}
	return invalid(op+" answer has no status: "+upstreams.TrimMessage(string(reply)), nil)
}

// replyField returns the value of key in a one-level object answer. Valid
// JSON is read as JSON; otherwise the original service's unquoted form
// ({id:001...}, {status : failure}, also with single quotes) is split by
// hand. Keys compare case-insensitively, as encoding/json does.
func replyField(body []byte, key string) (string, bool) {
	body = bytes.TrimSpace(body)
	if json.Valid(body) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(body, &obj) != nil {
			return "", false
		}
		for k, raw := range obj {
			if !strings.EqualFold(k, key) {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				return s, true
			}
			return string(raw), true
		}
		return "", false
	}
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return "", false
	}
	for pair := range strings.SplitSeq(string(body[1:len(body)-1]), ",") {
		k, v, found := strings.Cut(pair, ":")
		if found && strings.EqualFold(unquote(k), key) {
			return unquote(v), true
		}
	}
	return "", false
}

// unquote trims spaces and one pair of matching quotes.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

var errNotArray = errors.New("not a JSON array, or one whose brackets, braces or strings do not balance")

// splitArray returns the elements of a JSON array without decoding them.
func splitArray(body []byte) ([][]byte, error) {
	var items [][]byte
	if !jsonspan.Array(body, func(e []byte) { items = append(items, e) }) {
		return nil, errNotArray
	}
	return items, nil
}

// window cuts the page of offset and limit (negative: the rest) out of the
// whole list body and says where it sits.
func window(body []byte, offset, limit int) ([]byte, Placement, error) {
	items, err := splitArray(body)
	if err != nil {
		return nil, Placement{}, err
	}
	total := len(items)
	items = items[min(offset, total):]
	if limit >= 0 {
		items = items[:min(limit, len(items))]
	}
	p := Placement{Start: offset, Size: len(items), Total: int64(total), More: offset+len(items) < total}
	size := 2
	for _, it := range items {
		size += len(it) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']'), p, nil
}

// firstObject unwraps a Get answer: the first element of an array, or a
// bare object. found is false for an empty array.
func firstObject(body []byte) (rec []byte, found bool, err error) {
	t := bytes.TrimSpace(body)
	if len(t) > 0 && t[0] == '{' {
		if !json.Valid(t) {
			return nil, false, errors.New("invalid JSON object")
		}
		return t, true, nil
	}
	items, err := splitArray(t)
	if err != nil {
		return nil, false, err
	}
	if len(items) == 0 {
		return nil, false, nil
	}
	first := bytes.TrimSpace(items[0])
	if len(first) == 0 || first[0] != '{' {
		return nil, false, errors.New("array element is not an object")
	}
	return first, true, nil
}
