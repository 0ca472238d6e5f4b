// Package desync holds the gateway's framing suite, and nothing else: its
// tests run the whole gateway on a real plain-HTTP listener and try to make
// one caller receive an answer meant for another.
//
// On the request side, raw request smuggling attacks (CL.TE, TE.CL, TE.TE
// obfuscations, duplicate and malformed Content-Length, chunk-size tricks,
// pipelining) go through real nginx and HAProxy in front of the gateway,
// and directly to it, followed by victims on other connections. On the
// answer side, a hostile raw-socket backend answers with every framing
// trick (both lengths, conflicting lengths, bytes after the body, late
// unsolicited answers, 1xx floods, oversized heads, resets mid-body).
//
// Every request carries an id the backend echoes; the suite passes when
// every answer carries its own request's id or is a coded error envelope
// (502 for every malformed answer), and no pooled connection that carried
// extra bytes is used again. It runs with both positions of the engine
// switches (server.http1 and the upstream transport).
//
// nginx and HAProxy come from Debian's packages (apt-get install -y nginx
// haproxy); the tests start them on loopback ports with configuration files
// of their own in a temporary directory. Outside CI a missing binary skips
// those tests with a message; with CI set in the environment it fails them.
// See docs/internals/http-engines.md.
package desync
