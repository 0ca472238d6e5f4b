package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// upstreamIdleConns is the gateway's default upstreams.*.maxIdleConnsPerHost,
// so both keep the same pool of backend connections.
const upstreamIdleConns = 64

// newProxy returns the bare reverse proxy the gateway is compared with: to
// target (a loopback URL), with the transport tuning of the gateway's
// upstream client.
func newProxy(target string) (*httputil.ReverseProxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	if err := checkLoopback(u.Hostname()); err != nil {
		return nil, fmt.Errorf("proxy target: %w", err)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.MaxIdleConns = max(upstreamIdleConns, 100)
	t.MaxIdleConnsPerHost = upstreamIdleConns
	t.IdleConnTimeout = 90 * time.Second
	p := httputil.NewSingleHostReverseProxy(u)
	p.Transport = t
	return p, nil
}
