// Command headshim stands between Stoplight Prism and the gateway in
// .ci/openapi-clients.sh and removes Content-Type from the answers to HEAD,
// and nothing else. Prism (5.x, its parseResponse) reads an answer's body as
// JSON whenever its Content-Type says JSON, and fails on the empty body of a
// HEAD answer, which rightly carries GET's Content-Type. Without the header
// Prism validates a HEAD answer's status and headers against the document,
// as it does every other answer's.
//
//	headshim -target http://127.0.0.1:8443
//
// It listens on a free loopback port and prints its address.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
)

func main() {
	target := flag.String("target", "", "the gateway's address")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		log.Fatalf("headshim: -target must be an address such as http://127.0.0.1:8443, not %q", *target)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodHead {
			resp.Header.Del("Content-Type")
		}
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("headshim: listening on http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, proxy))
}
