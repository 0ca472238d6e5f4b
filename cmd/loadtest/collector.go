package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// targetCollector names the call log collector's process.
const targetCollector = "collector"

// collector is the call log collector the gateways ship to: a process of
// its own (-serve-collector), as the backend is, so that its work (reading
// every batch the gateways send) never delays the load generator's timers
// and reads, and its garbage never stops the harness's own goroutines:
// in the harness's process, only the gateway targets' latencies paid for
// it.
type collector struct {
	proc *child
	url  string // where the gateways ship (POST)
}

// startCollector starts the collector's process, self re-executed.
func startCollector(ctx context.Context, self, host string) (*collector, error) {
	proc, err := startChild(ctx, targetCollector, childCommand(self, "-serve-collector", "-host", host))
	if err != nil {
		return nil, err
	}
	return &collector{proc: proc, url: proc.url + "/log"}, nil
}

// Load is the number of call log lines the collector received so far; 0
// when it cannot be asked.
func (c *collector) Load() int64 {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(c.proc.url + "/count")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}

func (c *collector) stop() { c.proc.stop() }

// collectorHandler counts the lines of every POST to /log (the call log's
// batches, one JSON line per call) through a pooled buffer, allocating
// nothing per batch, and answers GET /count with the total.
func collectorHandler() http.Handler {
	var lines atomic.Int64
	bufs := sync.Pool{New: func() any { return new([32 << 10]byte) }}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /log", func(w http.ResponseWriter, r *http.Request) {
		buf := bufs.Get().(*[32 << 10]byte)
		defer bufs.Put(buf)
		var n int64
		for {
			k, err := r.Body.Read(buf[:])
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
		}
		lines.Add(n)
	})
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, lines.Load())
	})
	return mux
}

// serveCollector serves collectorHandler until ctx ends (-serve-collector).
func serveCollector(ctx context.Context, host string, out io.Writer) error {
	return serveChild(ctx, host, out, collectorHandler(), nil)
}
