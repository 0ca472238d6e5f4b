package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
)

// backendPath is the B1 list path, asked of the backend and the proxy.
const backendPath = "/api/v1/account/"

// usageHeader is the org's usage the backend reports with -usage-header,
// as a Salesforce org does on every answer: a guarded upstream reads it,
// and it is far from any reserve.
const usageHeader = "api-usage=18/1000000000"

// backendHandler answers the list on the B1 path and 404 elsewhere: the
// fixed list of 20 accounts, or, asked with ?limit=N&offset=0, N
// generated records; with usage, every answer reports an org's API usage
// in Sforce-Limit-Info.
func backendHandler(usage bool) http.Handler {
	list := sandboxaccounts.FixedList()
	var lists recordLists
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != backendPath && r.URL.Path != strings.TrimSuffix(backendPath, "/") {
			http.NotFound(w, r)
			return
		}
		n, err := listSize(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body := list
		if n > 0 {
			body = lists.get(n)
		}
		h := w.Header()
		if usage {
			h["Sforce-Limit-Info"] = []string{usageHeader}
		}
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		_, _ = w.Write(body)
	})
}

// serveChild serves h on host:0 until ctx ends, after printing "LISTEN
// <url>" on out so the parent learns the port; with tlsCfg, over TLS.
func serveChild(ctx context.Context, host string, out io.Writer, h http.Handler, tlsCfg *tls.Config) error {
	if err := checkLoopback(host); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
		ln = tls.NewListener(ln, tlsCfg)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 120 * time.Second}
	if _, err := fmt.Fprintf(out, "LISTEN %s://%s\n", scheme, ln.Addr()); err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
