package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// backendPath is the B1 list path, asked of the backend and the proxy.
const backendPath = "/api/v1/account/"

// accountsJSON is the fixed B1 list answer: 20 accounts with every field of
// the Account model, a third of the optional ones null, as the account
// controller writes them.
func accountsJSON() []byte {
	recs := make([]string, 20)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"Id":"001000000000%03dAAA","Name":"Account %d","External_Id__c":"EXT-%05d",`+
			`"SicDesc":null,"AccountSource":"Web","Site":null,"Rating":"Warm","Description":"Record number %d of the load test",`+
			`"TickerSymbol":null,"Ownership":"Public","NumberOfEmployees":%d,"BillingCountry":"United States",`+
			`"BillingPostalCode":"27215","BillingState":"NC","BillingCity":"Burlington","BillingStreet":"525 S. Lexington Ave",`+
			`"ParentId":null,"Type":"Customer - Direct","Total_Assets__c":%d.5,"PhotoUrl":"/services/images/photo/001000000000%03dAAA",`+
			`"Website":"www.example.com","AccountNumber":"CD%06d","Fax":null,"Phone":"(336) 222-7000"}`,
			i, i, 1000+i, i, 100*i, 1000000*i, i, 355000+i)
	}
	return []byte("[" + strings.Join(recs, ",") + "]")
}

// backendHandler answers the list on the B1 path and 404 elsewhere.
func backendHandler() http.Handler {
	list := accountsJSON()
	length := fmt.Sprint(len(list))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != backendPath && r.URL.Path != strings.TrimSuffix(backendPath, "/") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Content-Length"] = []string{length}
		_, _ = w.Write(list)
	})
}

// serveChild serves h on host:0 until ctx ends, after printing "LISTEN
// <url>" on out so the parent learns the port.
func serveChild(ctx context.Context, host string, out io.Writer, h http.Handler) error {
	if err := checkLoopback(host); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 120 * time.Second}
	if _, err := fmt.Fprintf(out, "LISTEN http://%s\n", ln.Addr()); err != nil {
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
