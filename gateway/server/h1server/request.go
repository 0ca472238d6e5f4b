package h1server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// errMalformed is wrapped by the errors of a request head that is not
// HTTP/1.x as net/http reads it: a bad request line, field line or framing
// field. The server answers it 400.
var errMalformed = errors.New("h1server: malformed request")

// readRequest reads one request head from br and decides its body's
// framing, accepting and refusing what http.ReadRequest does (FuzzRequestHead
// holds the two together, and lists where it is stricter). Like
// http.ReadRequest it returns io.EOF when br ends before the request's first
// byte and io.ErrUnexpectedEOF when it ends inside the head. Its size is
// bounded by what br's source delivers (the connection's limit).
func readRequest(br *bufio.Reader) (*http.Request, error) {
	req := &http.Request{}
	if _, err := readRequestHead(br, req); err != nil {
		return nil, err
	}
	delete(req.Header, "Host")
	return req, nil
}

// readRequestHead is readRequest into req, a zero Request, leaving the
// Host field in the header, as net/http's server reads a request before
// its own checks (checkRequest), and reporting the framing fields the head
// had.
func readRequestHead(br *bufio.Reader, req *http.Request) (h1wire.Framing, error) {
	head, err := readHead(br)
	if err != nil {
		return 0, err
	}
	seen, err := parseRequest(head, true, req)
	if err != nil {
		return 0, err
	}
	if err := frame(req, seen, br); err != nil {
		return 0, err
	}
	return seen, nil
}

// readHead returns the text of the head at the start of br, through its
// blank line, and consumes it (see h1wire.ReadHead). Its size is bounded by
// what br's source delivers, not here: the connection's limit answers 431.
func readHead(br *bufio.Reader) (string, error) {
	head, err := h1wire.ReadHead(br, math.MaxInt)
	if err != nil {
		return "", cutHead(head, err)
	}
	return head, nil
}

// cutHead is the error for a head that ended after partial, when reading
// failed with err. net/http parses line by line, so a malformed line before
// the end is refused as such (and answered 400) rather than as a head cut
// short; like bufio.Reader.ReadLine, a last line without its end counts as
// a line.
func cutHead(partial string, err error) error {
	if partial == "" {
		return err // nothing of a request: io.EOF stays io.EOF
	}
	if _, perr := parseRequest(partial, false, &http.Request{}); perr != nil && errors.Is(perr, errMalformed) {
		return perr
	}
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseRequest parses a head into req: the request line, then the fields
// up to the blank line. complete false says the head was cut short: it is
// parsed as far as it goes and, if nothing is wrong there,
// io.ErrUnexpectedEOF is returned.
func parseRequest(head string, complete bool, req *http.Request) (h1wire.Framing, error) {
	line, rest := h1wire.NextLine(head)
	if err := parseRequestLine(line, req); err != nil {
		return 0, err
	}
	var h http.Header
	var seen h1wire.Framing
	var err error
	if complete {
		h, seen, err = h1wire.ParseFields(rest)
	} else {
		h, seen, err = h1wire.ParseCutFields(rest)
	}
	if err != nil {
		return 0, malformed(err)
	}
	req.Header = h
	// the Host field gives req.Host when the target does not; it stays in
	// the header for checkRequest
	if seen&h1wire.FieldHost != 0 {
		hosts := h["Host"]
		if len(hosts) > 1 {
			return 0, fmt.Errorf("%w: too many Host headers", errMalformed)
		}
		if req.Host == "" {
			req.Host = hosts[0]
		}
	}
	h1wire.FixPragma(h, seen)
	return seen, nil
}

// malformed reports a syntax error wire found under errMalformed, keeping
// its detail; other errors (io.ErrUnexpectedEOF) pass as they are.
func malformed(err error) error {
	if errors.Is(err, h1wire.ErrMalformed) {
		return fmt.Errorf("%w: %w", errMalformed, err)
	}
	return err
}

// parseRequestLine fills req from "METHOD SP request-target SP HTTP/x.y",
// as net/http reads it: the target is parsed by url.ParseRequestURI (a
// CONNECT's authority as a URL's host), and req.Host is the target's host.
func parseRequestLine(line string, req *http.Request) error {
	method, rest, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 {
		return fmt.Errorf("%w: request line %q", errMalformed, line)
	}
	if !h1wire.ValidToken(method) {
		return fmt.Errorf("%w: method %q", errMalformed, method)
	}
	major, minor, ok := http.ParseHTTPVersion(proto)
	if !ok {
		return fmt.Errorf("%w: version %q", errMalformed, proto)
	}
	u, err := parseTarget(method, target)
	if err != nil {
		return fmt.Errorf("%w: %w", errMalformed, err)
	}
	req.Method, req.RequestURI, req.URL, req.Host = method, target, u, u.Host
	req.Proto, req.ProtoMajor, req.ProtoMinor = proto, major, minor
	return nil
}

// parseTarget parses a request target as net/http does. An origin-form
// target whose path needs no unescaping (the common case) is split here;
// url.ParseRequestURI gives the same URL for it, at more cost.
func parseTarget(method, target string) (*url.URL, error) {
	if u, ok := plainTarget(target); ok {
		return u, nil
	}
	// CONNECT host:port names an authority, not a path (net/rpc's
	// CONNECT /path is a path)
	authority := method == http.MethodConnect && !strings.HasPrefix(target, "/")
	raw := target
	if authority {
		raw = "http://" + target
	}
	u, err := url.ParseRequestURI(raw)
	if err != nil {
		return nil, err
	}
	if authority {
		u.Scheme = ""
	}
	return u, nil
}

// plainTarget splits "/path[?query]" when the path holds only characters
// url.URL keeps as they are (so Path is the path and RawPath empty) and the
// target no control byte; otherwise it reports false.
func plainTarget(target string) (*url.URL, bool) {
	if len(target) == 0 || target[0] != '/' {
		return nil, false
	}
	path, query, hasQuery := strings.Cut(target, "?")
	for i := 0; i < len(path); i++ {
		if !plainPathByte(path[i]) {
			return nil, false
		}
	}
	for i := 0; i < len(query); i++ {
		if c := query[i]; c < 0x20 || c == 0x7f {
			return nil, false
		}
	}
	u := &url.URL{Path: path}
	if hasQuery && query == "" {
		u.ForceQuery = true // "/p?" keeps its "?"
	} else {
		u.RawQuery = query
	}
	return u, true
}

// plainPathByte reports a byte url.URL neither unescapes nor escapes in a
// path: letters, digits and "-._~/$&+,:;=@".
func plainPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '.', '_', '~', '/', '$', '&', '+', ',', ':', ';', '=', '@':
		return true
	}
	return false
}
