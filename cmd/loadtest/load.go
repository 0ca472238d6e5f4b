package main

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// maxLatencyMicros is the largest latency the histograms hold; slower
// requests are recorded at it.
const maxLatencyMicros = 60_000_000

func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, maxLatencyMicros, 3) }

// newClient returns the keep-alive client every target is driven with:
// one connection per worker, HTTP/1.1, nothing shared between targets. It
// never decodes answers; with gzip it asks for gzip (Accept-Encoding: gzip),
// so what it reads is what was sent. Over TLS it takes any certificate
// (every target's is self-signed, on loopback). With auth every request
// carries the next of its bearer tokens.
func newClient(concurrency int, secure, gzip bool, auth *bearer) *http.Client {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	if secure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}} //nolint:gosec // loopback targets with self-signed certificates
		t.TLSHandshakeTimeout = 30 * time.Second
	}
	var rt http.RoundTripper = t
	if gzip || auth != nil {
		rt = requestHeaders{next: t, gzip: gzip, auth: auth}
	}
	return &http.Client{Transport: rt, Timeout: 30 * time.Second}
}

// requestHeaders adds Accept-Encoding: gzip (with gzip) and the next
// bearer token of auth (when not nil) to every request.
type requestHeaders struct {
	next http.RoundTripper
	gzip bool
	auth *bearer
}

func (h requestHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.gzip {
		r.Header.Set("Accept-Encoding", "gzip")
	}
	if h.auth != nil {
		r.Header["Authorization"] = h.auth.take()
	}
	return h.next.RoundTrip(r)
}

// loadResult is one stretch of load on one target.
type loadResult struct {
	// requests were answered 200 in full; non2xx were answered with
	// another status, failures not answered at all.
	requests, non2xx, failures int64
	// bytes is the 200 answers' body bytes as sent.
	bytes   int64
	elapsed time.Duration
	hist    *hdrhistogram.Histogram
}

// histShards spreads the workers' latencies over a few histograms, so
// thousands of workers neither share one lock nor each hold a histogram.
const histShards = 16

// drive sends GET url from concurrency workers, each waiting for its
// answer before the next request, for d. Latency is from sending the
// request to reading the last byte of the answer.
func drive(ctx context.Context, client *http.Client, url string, concurrency int, d time.Duration) loadResult {
	return driveWith(ctx, concurrency, d, func(int) (int, int64, error) { return get(client, url) })
}

// driveWith is drive with each request sent by send(worker): it returns
// the answer's status, its body bytes as sent, or the failure.
func driveWith(ctx context.Context, concurrency int, d time.Duration, send func(worker int) (int, int64, error)) loadResult {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		wg                    sync.WaitGroup
		non2xx, failed, bytes atomic.Int64
		shards                [histShards]struct {
			sync.Mutex
			h *hdrhistogram.Histogram
		}
	)
	for i := range shards {
		shards[i].h = newHistogram()
	}
	start := time.Now()
	for w := range concurrency {
		wg.Go(func() {
			sh := &shards[w%histShards]
			for ctx.Err() == nil {
				t0 := time.Now()
				status, n, err := send(w)
				switch {
				case err != nil:
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				case status != http.StatusOK:
					non2xx.Add(1)
					continue
				}
				sh.Lock()
				_ = sh.h.RecordValue(min(time.Since(t0).Microseconds(), maxLatencyMicros))
				sh.Unlock()
				bytes.Add(n)
			}
		})
	}
	wg.Wait()
	total := newHistogram()
	for i := range shards {
		total.Merge(shards[i].h)
	}
	return loadResult{requests: total.TotalCount(), non2xx: non2xx.Load(), failures: failed.Load(),
		bytes: bytes.Load(), elapsed: time.Since(start), hist: total}
}

// get sends one request and returns the status of its answer, read in
// full, and the answer's body bytes as sent. No request is cut off by the
// end of a stretch: its answer is awaited, so the stretch's CPU covers the
// requests it counts.
func get(client *http.Client, url string) (int, int64, error) {
	resp, err := client.Get(url)
	return read(resp, err)
}

// read reads resp's body in full, as get does.
func read(resp *http.Response, err error) (int, int64, error) {
	if err != nil {
		return 0, 0, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, n, err
}
