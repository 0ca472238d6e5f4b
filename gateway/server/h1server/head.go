package h1server

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// appendFields renders the status line and the handler's fields into
// c.head when the final status is set: the header as it is then is the one
// sent, as net/http's contract has it, whenever the head leaves. It notes
// what of the header the framing still needs.
func (w *response) appendFields() {
	c := w.c
	h := w.header
	dst := c.head[:0]
	if w.req.ProtoAtLeast(1, 1) {
		dst = append(dst, "HTTP/1.1 "...)
	} else {
		dst = append(dst, "HTTP/1.0 "...)
	}
	dst = strconv.AppendInt(dst, int64(w.status), 10)
	dst = append(dst, ' ')
	if text := http.StatusText(w.status); text != "" {
		dst = append(dst, text...)
	} else {
		dst = append(dst, "status code "...)
		dst = strconv.AppendInt(dst, int64(w.status), 10)
	}
	dst = append(dst, "\r\n"...)

	keys := c.keys[:0]
	for k := range h {
		switch k {
		case "Content-Length", "Transfer-Encoding", "Connection":
			continue // framing is the server's
		case "Content-Type":
			if !bodyAllowed(w.status) {
				continue
			}
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !h1wire.ValidToken(k) {
			continue // dropped, as net/http does: there is no one to tell
		}
		for _, v := range h[k] {
			dst = appendField(dst, k, v)
		}
	}
	clear(keys)
	c.keys = keys[:0]
	c.head = dst

	_, w.hasDate = h["Date"]
	_, w.hasType = h["Content-Type"]
	// an encoded body's first bytes say nothing of its type (net/http)
	w.hasType = w.hasType || (len(h["Content-Encoding"]) > 0 && h["Content-Encoding"][0] != "")
	w.closeField = h1wire.HasToken(h["Connection"], "close")
}

// appendHead completes the head appendFields began. last says the handler
// is done and held bytes (or, with nothing held, p) are the whole body, so
// a Content-Length can be computed; otherwise the body is streamed, chunked
// unless its length was declared (HTTP/1.0: until the close).
func (w *response) appendHead(dst []byte, last bool, p []byte) []byte {
	c := w.c
	first := p
	if w.heldLen() > 0 {
		first = *w.held
	}
	length := w.declared
	switch {
	case !bodyAllowed(w.status):
		length = -1
	case length >= 0:
	case last && w.noBody && w.written > 0: // HEAD: the length a GET would have
		length = w.written
	case last && !w.noBody:
		length = int64(w.heldLen() + len(p))
	case w.noBody:
	case w.req.ProtoAtLeast(1, 1):
		w.chunked = true
	default:
		w.close = true // HTTP/1.0 without a length: the close ends the body
	}
	if w.req.Close || c.srv.closing.Load() || c.gone.Load() || w.closeField {
		w.close = true
	}

	if !w.hasDate {
		dst = append(dst, "Date: "...)
		dst = append(dst, c.date.get(time.Now())...)
		dst = append(dst, "\r\n"...)
	}
	switch {
	case w.hasType || !bodyAllowed(w.status):
	case len(first) > 0:
		dst = appendField(dst, "Content-Type", http.DetectContentType(first))
	case w.sniffed != "":
		dst = appendField(dst, "Content-Type", w.sniffed)
	}
	if length >= 0 {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, length, 10)
		dst = append(dst, "\r\n"...)
	}
	if w.chunked {
		dst = append(dst, "Transfer-Encoding: chunked\r\n"...)
	}
	switch {
	case w.close:
		dst = append(dst, "Connection: close\r\n"...)
	case !w.req.ProtoAtLeast(1, 1):
		dst = append(dst, "Connection: keep-alive\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// appendField appends "name: value\r\n", the value's line breaks turned to
// spaces and its ends trimmed, as net/http writes fields.
func appendField(dst []byte, name, v string) []byte {
	dst = append(dst, name...)
	dst = append(dst, ": "...)
	v = strings.TrimSpace(v)
	start := len(dst)
	dst = append(dst, v...)
	for i := start; i < len(dst); i++ {
		if dst[i] == '\r' || dst[i] == '\n' {
			dst[i] = ' '
		}
	}
	return append(dst, "\r\n"...)
}

// dateCache formats the Date field once a second.
type dateCache struct {
	sec  int64
	text []byte
}

func (d *dateCache) get(now time.Time) []byte {
	if sec := now.Unix(); sec != d.sec || d.text == nil {
		d.sec = sec
		d.text = now.UTC().AppendFormat(d.text[:0], http.TimeFormat)
	}
	return d.text
}

// validHost reports a Host value made of the characters net/http accepts
// (letters, digits and "!$%&'()*+,-.:;=[]_~"); empty is valid here.
func validHost(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!$%&'()*+,-.:;=[]_~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
