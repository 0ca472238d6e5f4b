// Command collector is the smallest log collector: it prints every batch of
// the call log the gateway POSTs to it, to try the call log on one machine.
//
//	go run ./examples/collector -listen 127.0.0.1:9999
//	GATEWAY_LOG_COLLECTOR_URL=http://127.0.0.1:9999/calls go run ./cmd/gateway
//
// Each batch is printed as a header line (path, content type, encoding and
// idempotency key, which a real collector uses to drop a batch it already
// has) and then its body, gzip undone. It answers 204, so the gateway counts
// the batch as delivered. Ctrl-C stops it. docs/getting-started/call-log.md
// walks through it; it is an example, not a store: use Loki, Elasticsearch
// or an OTLP collector in production (docs/guides/observability.md).
package main

import (
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// maxBatch bounds what is read of one batch.
const maxBatch = 64 << 20

func main() {
	listen := flag.String("listen", "127.0.0.1:9999", "the `address` to listen on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *listen, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// serve prints the batches POSTed to addr on out until ctx ends.
func serve(ctx context.Context, addr string, out io.Writer) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "collector listening on http://%s/\n", l.Addr())
	srv := &http.Server{Handler: printer(out), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(out, "collector stopped")
	return nil
}

// printer writes each POSTed batch to out, one batch at a time.
func printer(out io.Writer) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST batches here", http.StatusMethodNotAllowed)
			return
		}
		var body io.Reader = http.MaxBytesReader(w, r.Body, maxBatch)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(body)
			if err != nil {
				http.Error(w, "bad gzip: "+err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		data, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		fmt.Fprintf(out, "--- POST %s (%s", r.URL.Path, r.Header.Get("Content-Type"))
		if enc := r.Header.Get("Content-Encoding"); enc != "" {
			fmt.Fprintf(out, ", %s", enc)
		}
		fmt.Fprintf(out, ", Idempotency-Key %s)\n%s", r.Header.Get("Idempotency-Key"), data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			fmt.Fprintln(out)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
}
