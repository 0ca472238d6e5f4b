package h1server

import (
	"crypto/tls"
	"errors"
	"io"
	"time"
)

// handshake completes the TLS handshake of a connection accepted with
// Options.TLSConfig, bounded from the accept by the least of the server's
// timeouts (net/http's bound). It reports whether the connection is to be
// served here: a failed handshake ends it (a client speaking plain HTTP is
// told so in plain text, as net/http tells it), and a connection that
// negotiated a protocol with an Options.TLSNextProto entry (h2) is handed
// to that entry, which owns it from then on.
func (c *conn) handshake(tc *tls.Conn) bool {
	o := &c.srv.opts
	if d := handshakeTimeout(o); d > 0 {
		c.setRead(c.accepted, d)
		c.setWrite(c.accepted, d)
	}
	if err := tc.HandshakeContext(c.ctx); err != nil {
		if re, ok := errors.AsType[tls.RecordHeaderError](err); ok && re.Conn != nil && looksLikeHTTP(re.RecordHeader) {
			_, _ = io.WriteString(re.Conn, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
			return false
		}
		c.srv.logger.Warn("TLS handshake failed", "remote", c.remote, "error", err)
		return false
	}
	state := tc.ConnectionState()
	if proto := state.NegotiatedProtocol; proto != "" && proto != "http/1.1" {
		if next := o.TLSNextProto[proto]; next != nil {
			// active, so that Shutdown leaves it to its new owner
			if !c.state.CompareAndSwap(stateNew, stateActive) {
				return false
			}
			c.handedOff = true
			_ = c.setReadAt(time.Time{})
			_ = c.setWriteAt(time.Time{})
			next(tc)
			return false
		}
	}
	c.tls = &state
	return true
}

// handshakeTimeout is the least positive of the server's timeouts, 0 when
// none is set (net/http's tlsHandshakeTimeout).
func handshakeTimeout(o *Options) time.Duration {
	var d time.Duration
	for _, t := range [...]time.Duration{o.ReadHeaderTimeout, o.ReadTimeout, o.WriteTimeout} {
		if t > 0 && (d == 0 || t < d) {
			d = t
		}
	}
	return d
}

// looksLikeHTTP reports whether a TLS record header is the start of a
// plain HTTP request (net/http's tlsRecordHeaderLooksLikeHTTP).
func looksLikeHTTP(hdr [5]byte) bool {
	switch string(hdr[:]) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO":
		return true
	}
	return false
}

// writeOut sends the pieces of c.out: in one writev on a plain connection;
// over TLS, where each Write is a record of its own and a system call,
// copied together into one Write when they are not larger than bodyLimit
// and a head.
func (c *conn) writeOut() error {
	if c.tls == nil || len(c.out) == 1 {
		_, err := c.out.WriteTo(c.rwc)
		return err
	}
	n := 0
	for _, b := range c.out {
		n += len(b)
	}
	if n > bodyLimit+headSlack {
		_, err := c.out.WriteTo(c.rwc)
		return err
	}
	bp := c.srv.getBody()
	for _, b := range c.out {
		*bp = append(*bp, b...)
	}
	_, err := c.rwc.Write(*bp)
	c.srv.putBody(bp)
	return err
}
