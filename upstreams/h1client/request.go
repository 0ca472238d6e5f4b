package h1client

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// defaultUserAgent is net/http's, sent when the request sets none.
const defaultUserAgent = "Go-http-client/1.1"

// ErrInvalidRequest is wrapped by the errors of a request that cannot be
// written as it is: a method, header name or value, or host that would
// change the message's framing.
var ErrInvalidRequest = errors.New("h1client: invalid request")

// writeRequest writes req as (*http.Request).Write does for the requests
// the transport takes (no body, or one of known length), without its
// formatted printing and header sorting, and refusing, as net/http's
// Transport does, what would inject into the message: control characters
// in values, non-token names and methods. The body is closed.
func writeRequest(bw *bufio.Writer, req *http.Request) error {
	defer closeBody(req)
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	if !h1wire.ValidToken(method) {
		return fmt.Errorf("%w: method %q", ErrInvalidRequest, method)
	}
	if !h1wire.ValidValue(host) || containsSpace(host) {
		return fmt.Errorf("%w: host %q", ErrInvalidRequest, host)
	}
	uri := req.URL.RequestURI()
	if !h1wire.ValidValue(uri) || containsSpace(uri) {
		return fmt.Errorf("%w: request URI %q", ErrInvalidRequest, uri)
	}
	_, _ = bw.WriteString(method)
	_ = bw.WriteByte(' ')
	_, _ = bw.WriteString(uri)
	_, _ = bw.WriteString(" HTTP/1.1\r\nHost: ")
	_, _ = bw.WriteString(host)
	_, _ = bw.WriteString("\r\n")
	ua := defaultUserAgent
	if vs, ok := req.Header["User-Agent"]; ok {
		ua = ""
		if len(vs) > 0 {
			ua = vs[0]
		}
	}
	if ua != "" {
		if err := writeField(bw, "User-Agent", ua); err != nil {
			return err
		}
	}
	switch {
	case hasBody(req):
		_, _ = bw.WriteString("Content-Length: ")
		_, _ = bw.Write(strconv.AppendInt(bw.AvailableBuffer(), req.ContentLength, 10))
		_, _ = bw.WriteString("\r\n")
	case method != http.MethodGet && method != http.MethodHead:
		_, _ = bw.WriteString("Content-Length: 0\r\n")
	}
	if req.Close && req.Header.Get("Connection") == "" {
		_, _ = bw.WriteString("Connection: close\r\n")
	}
	for name, values := range req.Header {
		switch name {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		}
		if !h1wire.ValidToken(name) {
			return fmt.Errorf("%w: header name %q", ErrInvalidRequest, name)
		}
		for _, v := range values {
			if err := writeField(bw, name, v); err != nil {
				return err
			}
		}
	}
	_, _ = bw.WriteString("\r\n")
	if !hasBody(req) {
		return nil
	}
	n, err := io.Copy(bw, io.LimitReader(req.Body, req.ContentLength+1))
	if err != nil {
		return err
	}
	if n != req.ContentLength {
		return fmt.Errorf("%w: ContentLength=%d with Body length %d", ErrInvalidRequest, req.ContentLength, n)
	}
	return nil
}

func writeField(bw *bufio.Writer, name, value string) error {
	if !h1wire.ValidValue(value) {
		return fmt.Errorf("%w: value of header %q", ErrInvalidRequest, name)
	}
	_, _ = bw.WriteString(name)
	_, _ = bw.WriteString(": ")
	_, _ = bw.WriteString(value)
	_, _ = bw.WriteString("\r\n")
	return nil
}

func containsSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			return true
		}
	}
	return false
}
