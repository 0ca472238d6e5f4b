package dataapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/restgate/gateway/upstreams"
)

// maxMessageLen bounds the backend text an error carries into logs and
// system messages.
const maxMessageLen = 1000

// maxCodeLen bounds the backend's errorCode an error carries.
const maxCodeLen = 100

// statusError turns a non-2xx answer into an *upstreams.Error (4xx
// KindRejected, else KindFailed) carrying the backend's errorCode and
// message; a body it cannot read still yields the status, with the status
// text as message.
func statusError(status int, body []byte) *upstreams.Error {
	code, message := parseErrorBody(body)
	if message == "" {
		message = http.StatusText(status)
	}
	return upstreams.NewStatusError(Upstream, status, code, message)
}

// apiError is one element of the data API's error array.
type apiError struct {
	Message   string   `json:"message"`
	ErrorCode string   `json:"errorCode"`
	Fields    []string `json:"fields"`
}

// parseErrorBody reads the data API's error array
// [{"message", "errorCode", "fields"}]: the code is the first element's, the
// messages are joined. It also reads a single such object and the fault
// object an API gateway in front answers with ({"fault": {"faultstring",
// "detail": {"errorcode"}}}, for a missing or wrong key). Anything else
// yields empty strings.
func parseErrorBody(body []byte) (code, message string) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return "", ""
	}
	switch body[0] {
	case '[':
		var errs []apiError
		if json.Unmarshal(body, &errs) != nil {
			return "", ""
		}
		var msgs []string
		for _, e := range errs {
			if code == "" {
				code = e.ErrorCode
			}
			if m := describeAPIError(e); m != "" {
				msgs = append(msgs, m)
			}
		}
		return clean(code, maxCodeLen), clean(strings.Join(msgs, "; "), maxMessageLen)
	case '{':
		var obj struct {
			apiError
			Fault struct {
				FaultString string `json:"faultstring"`
				Detail      struct {
					ErrorCode string `json:"errorcode"`
				} `json:"detail"`
			} `json:"fault"`
		}
		if json.Unmarshal(body, &obj) != nil {
			return "", ""
		}
		if obj.ErrorCode != "" || obj.Message != "" {
			return clean(obj.ErrorCode, maxCodeLen), clean(describeAPIError(obj.apiError), maxMessageLen)
		}
		return clean(obj.Fault.Detail.ErrorCode, maxCodeLen), clean(obj.Fault.FaultString, maxMessageLen)
	}
	return "", ""
}

func describeAPIError(e apiError) string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	return e.Message + " (fields: " + strings.Join(e.Fields, ", ") + ")"
}

// clean makes backend text safe to log: valid UTF-8, no control characters,
// at most n bytes.
func clean(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return truncate(strings.TrimSpace(s), n)
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
