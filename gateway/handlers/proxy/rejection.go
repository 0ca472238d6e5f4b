package proxy

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// rejection reads the start of a non-2xx answer and builds its error: the
// backend's message and code when its body has one of the usual shapes
// (the data API's [{"message","errorCode"}], or {"message"|"error",
// "errorCode"|"code"}), else the body's text. The rest of the body is
// not read; closing it lets the client drop the connection if it must.
func rejection(upstream string, resp *http.Response) *upstreams.Error {
	buf, _ := io.ReadAll(io.LimitReader(resp.Body, maxMessageBytes))
	code, msg := backendMessage(buf)
	return upstreams.NewStatusError(upstream, resp.StatusCode, code, msg)
}

type backendError struct {
	Message   string `json:"message"`
	Error     string `json:"error"`
	ErrorCode string `json:"errorCode"`
	Code      any    `json:"code"`
}

func backendMessage(body []byte) (code, msg string) {
	var one backendError
	var list []backendError
	switch {
	case json.Unmarshal(body, &list) == nil && len(list) > 0:
		one = list[0]
	case json.Unmarshal(body, &one) == nil:
	default:
		return "", strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	}
	msg = one.Message
	if msg == "" {
		msg = one.Error
	}
	code = one.ErrorCode
	if s, ok := one.Code.(string); ok && code == "" {
		code = s
	}
	if msg == "" {
		msg = strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	}
	return code, msg
}
