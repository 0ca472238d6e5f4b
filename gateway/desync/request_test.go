package desync

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smuggled is a whole request for the account id, hidden in another
// request's body; prefix is the start of one, which glues itself to the
// next request on the connection that reads it (the classic way of taking
// over a victim's request).
func smuggled(id string) string {
	return "GET /v2/accounts/" + id + " HTTP/1.1\r\nHost: gateway\r\n\r\n"
}

func prefix(id string) string { return "GET /v2/accounts/" + id + " HTTP/1.1\r\nX-Ignore: " }

// post is a POST to the accounts route with the given framing fields
// (CRLF-separated, no final CRLF) and body; "{{len}}" in the fields is
// the body's length.
func post(fields, body string) string {
	fields = strings.ReplaceAll(fields, "{{len}}", fmt.Sprint(len(body)))
	return "POST /v2/accounts HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n" + fields + "\r\n\r\n" + body
}

// chunk is data as one chunk.
func chunk(data string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(data), data) }

// attack is raw bytes one caller sends, built around the id of a request
// it hides; mine are ids it asks for openly (pipelined requests).
type attack struct {
	desc    string
	raw     func(hidden string, mine []string) string
	methods []string // of the requests it holds, when not all GET
}

// attacks are the request-side smuggling classics.
func attacks() []attack {
	clte := func(te string) func(string, []string) string {
		return func(h string, _ []string) string {
			return post("Content-Length: {{len}}\r\n"+te, "0\r\n\r\n"+prefix(h))
		}
	}
	lengths := func(cl string) func(string, []string) string {
		return func(h string, _ []string) string {
			return post(cl, "{}\r\n"+prefix(h))
		}
	}
	chunked := func(body func(h string) string) func(string, []string) string {
		return func(h string, _ []string) string {
			return post("Transfer-Encoding: chunked", body(h))
		}
	}
	return []attack{
		// CL.TE: the front counts Content-Length, the gateway chunks
		{desc: "CL.TE", raw: clte("Transfer-Encoding: chunked")},
		{desc: "CL.TE, a whole request hidden", raw: func(h string, _ []string) string {
			return post("Content-Length: {{len}}\r\nTransfer-Encoding: chunked", "0\r\n\r\n"+smuggled(h))
		}},
		// TE.CL: the front chunks, the gateway counts Content-Length
		{desc: "TE.CL", raw: func(h string, _ []string) string {
			body := chunk(smuggled(h)) + "0\r\n\r\n"
			return post("Content-Length: 4\r\nTransfer-Encoding: chunked", body)
		}},
		{desc: "TE.CL, length first", raw: func(h string, _ []string) string {
			body := chunk(smuggled(h)) + "0\r\n\r\n"
			return post("Transfer-Encoding: chunked\r\nContent-Length: 4", body)
		}},
		// TE.TE: one side is made to ignore Transfer-Encoding
		{desc: "TE.TE xchunked", raw: clte("Transfer-Encoding: xchunked")},
		{desc: "TE.TE chunk", raw: clte("Transfer-Encoding: chunk")},
		{desc: "TE.TE space before the colon", raw: clte("Transfer-Encoding : chunked")},
		{desc: "TE.TE two fields", raw: clte("Transfer-Encoding: chunked\r\nTransfer-Encoding: x")},
		{desc: "TE.TE two fields, the other first", raw: clte("Transfer-Encoding: x\r\nTransfer-Encoding: chunked")},
		{desc: "TE.TE tab", raw: clte("Transfer-Encoding:\tchunked")},
		{desc: "TE.TE vertical tab", raw: clte("Transfer-Encoding:\x0bchunked")},
		{desc: "TE.TE list", raw: clte("Transfer-Encoding: chunked, identity")},
		{desc: "TE.TE identity first", raw: clte("Transfer-Encoding: identity, chunked")},
		{desc: "TE.TE quoted", raw: clte(`Transfer-Encoding: "chunked"`)},
		{desc: "TE.TE upper case", raw: clte("Transfer-Encoding: CHUNKED")},
		{desc: "TE.TE folded value", raw: clte("Transfer-Encoding:\r\n chunked")},
		{desc: "TE.TE folded onto the previous field", raw: clte("X-A: b\r\n Transfer-Encoding: chunked")},
		{desc: "TE.TE bare LF before it", raw: clte("X-A: b\nTransfer-Encoding: chunked")},
		{desc: "TE.TE underscore", raw: clte("Transfer_Encoding: chunked")},
		{desc: "TE.TE NUL", raw: clte("Transfer-Encoding: chunked\x00")},
		{desc: "TE.TE trailing junk", raw: clte("Transfer-Encoding: chunked;q=1")},
		// duplicate and malformed Content-Length
		{desc: "two differing lengths", raw: lengths("Content-Length: 2\r\nContent-Length: {{len}}")},
		{desc: "two differing lengths, the long first", raw: lengths("Content-Length: {{len}}\r\nContent-Length: 2")},
		{desc: "two equal lengths", raw: lengths("Content-Length: 2\r\nContent-Length: 2")},
		{desc: "a list of lengths", raw: lengths("Content-Length: 2, {{len}}")},
		{desc: "signed length", raw: lengths("Content-Length: +2")},
		{desc: "negative length", raw: lengths("Content-Length: -1")},
		{desc: "hex length", raw: lengths("Content-Length: 0x2")},
		{desc: "length with a space inside", raw: lengths("Content-Length: 2 0")},
		{desc: "length with a NUL", raw: lengths("Content-Length: 2\x00")},
		{desc: "length with leading zeros", raw: lengths("Content-Length: 0002")},
		{desc: "overflowing length", raw: lengths("Content-Length: 18446744073709551618")},
		{desc: "space before the length's colon", raw: lengths("Content-Length : 2")},
		{desc: "empty length", raw: lengths("Content-Length: ")},
		// chunk-size tricks
		{desc: "chunk extension", raw: chunked(func(h string) string { return "2;x=y\r\n{}\r\n0\r\n\r\n" + prefix(h) })},
		{desc: "chunk extension with a quoted CRLF", raw: chunked(func(h string) string {
			return "2;x=\"\r\n" + smuggled(h) + "\"\r\n{}\r\n0\r\n\r\n"
		})},
		{desc: "leading zeros", raw: chunked(func(h string) string { return "0002\r\n{}\r\n0\r\n\r\n" + prefix(h) })},
		{desc: "space after the size", raw: chunked(func(h string) string { return "2 \r\n{}\r\n0\r\n\r\n" + prefix(h) })},
		{desc: "hex prefix", raw: chunked(func(h string) string { return "0x2\r\n{}\r\n0\r\n\r\n" + prefix(h) })},
		{desc: "negative size", raw: chunked(func(h string) string { return "-2\r\n{}\r\n0\r\n\r\n" + prefix(h) })},
		{desc: "overflowing size", raw: chunked(func(h string) string {
			return "10000000000000002\r\n{}\r\n0\r\n\r\n" + prefix(h)
		})},
		{desc: "bare LF line ends", raw: chunked(func(h string) string { return "2\n{}\n0\n\n" + prefix(h) })},
		{desc: "data longer than its size", raw: chunked(func(h string) string {
			return "2\r\n{}" + smuggled(h) + "\r\n0\r\n\r\n"
		})},
		{desc: "data shorter than its size", raw: chunked(func(h string) string {
			return fmt.Sprintf("%x\r\n{}\r\n0\r\n\r\n", 2+len(smuggled(h))+2) + smuggled(h)
		})},
		{desc: "last chunk without its blank line", raw: chunked(func(h string) string { return "2\r\n{}\r\n0\r\n" + smuggled(h) })},
		{desc: "a request in the trailer", raw: chunked(func(h string) string {
			return "2\r\n{}\r\n0\r\nX-T: 1\r\n" + smuggled(h)
		})},
		{desc: "a size of zero with data", raw: chunked(func(h string) string { return "0\r\n" + smuggled(h) + "\r\n\r\n" })},
		// pipelining: requests asked for openly come back in order, to
		// their sender only
		{desc: "pipelined GETs", raw: func(_ string, mine []string) string {
			return requestFor(http.MethodGet, mine[0]) + requestFor(http.MethodGet, mine[1])
		}},
		{desc: "pipelined POST and GET", raw: func(_ string, mine []string) string {
			return requestFor(http.MethodPost, mine[0]) + requestFor(http.MethodGet, mine[1])
		}},
		{desc: "pipelined chunked POST and GET", raw: func(_ string, mine []string) string {
			body := `{"name":"` + mine[0] + `"}`
			return post("Transfer-Encoding: chunked", chunk(body[:5])+chunk(body[5:])+"0\r\n\r\n") + requestFor(http.MethodGet, mine[1])
		}},
		{desc: "a GET with a body holding a request", raw: func(h string, mine []string) string {
			return fmt.Sprintf("GET /v2/accounts/%s HTTP/1.1\r\nHost: gateway\r\nContent-Length: %d\r\n\r\n%s", mine[0], len(smuggled(h)), smuggled(h))
		}},
		{desc: "a HEAD, then a GET", methods: []string{http.MethodHead}, raw: func(_ string, mine []string) string {
			return "HEAD /v2/accounts/" + mine[0] + " HTTP/1.1\r\nHost: gateway\r\n\r\n" + requestFor(http.MethodGet, mine[1])
		}},
		{desc: "Expect: 100-continue with a request for a body", raw: func(h string, _ []string) string {
			return post("Expect: 100-continue\r\nContent-Length: {{len}}", smuggled(h))
		}},
		{desc: "HTTP/1.0 with both framings", raw: func(h string, _ []string) string {
			body := "0\r\n\r\n" + prefix(h)
			return fmt.Sprintf("POST /v2/accounts HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n%s", len(body), body)
		}},
		{desc: "a blank line first", raw: func(_ string, mine []string) string {
			return "\r\n" + requestFor(http.MethodGet, mine[0])
		}},
	}
}

// victims are how many callers, each on a connection of its own, follow
// every attack; a third of them create rather than read.
const victims = 6

// TestRequestSmuggling sends every attack through every front to the
// gateway on both engines, then victims: every victim gets its own answer,
// and the attacker only answers to what it sent.
func TestRequestSmuggling(t *testing.T) {
	t.Parallel()
	for _, f := range fronts() {
		for _, engine := range engines {
			t.Run(f.name+"/"+engine, func(t *testing.T) {
				t.Parallel()
				b := newBackend(t, nil)
				addr := f.start(t, startGateway(t, engine, b.url))
				var g ids
				for _, a := range attacks() {
					hidden, mine := g.plain(), []string{g.plain(), g.plain()}
					answers, err := exchangeRaw(addr, a.raw(hidden, mine), a.methods...)
					if err != nil {
						t.Logf("%s: the attacker's connection: %v", a.desc, err)
					}
					for _, o := range answers {
						if o.id != "" {
							assert.Contains(t, append(mine, hidden), o.id, "%s: the attacker got another caller's answer", a.desc)
						}
					}
					checkVictims(t, a.desc, addr, &g)
					t.Logf("%s: the attacker got %v; hidden request served: %t", a.desc, answers, b.saw(hidden))
				}
			})
		}
	}
}

// checkVictims sends the victims at once and checks each got its own
// answer.
func checkVictims(t *testing.T, after, addr string, g *ids) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var wrong []string
	for i := range victims {
		method := http.MethodGet
		if i%3 == 2 {
			method = http.MethodPost
		}
		id := g.plain()
		wg.Go(func() {
			o, err := call(addr, method, id)
			switch {
			case err != nil:
				mu.Lock()
				wrong = append(wrong, fmt.Sprintf("%s %s: %v", method, id, err))
				mu.Unlock()
			case o.status != http.StatusOK && o.status != http.StatusCreated || o.id != id:
				mu.Lock()
				wrong = append(wrong, fmt.Sprintf("%s %s: got %v", method, id, o))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(wrong)
	require.Empty(t, wrong, "victims after %q", after)
}
