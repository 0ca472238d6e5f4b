package main

import (
	"context"
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
// one connection per worker, nothing shared between targets. It never
// decodes answers; with gzip it asks for gzip (Accept-Encoding: gzip), so
// what it reads is what was sent.
func newClient(concurrency int, gzip bool) *http.Client {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	var rt http.RoundTripper = t
	if gzip {
		rt = acceptGzip{t}
	}
	return &http.Client{Transport: rt, Timeout: 30 * time.Second}
}

// acceptGzip adds Accept-Encoding: gzip to every request.
type acceptGzip struct{ next http.RoundTripper }

func (a acceptGzip) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Accept-Encoding", "gzip")
	return a.next.RoundTrip(r)
}

// loadResult is one stretch of load on one target.
type loadResult struct {
	requests, errors int64
	// bytes is the answers' body bytes as sent.
	bytes   int64
	elapsed time.Duration
	hist    *hdrhistogram.Histogram
}

// drive sends GET url from concurrency workers, each waiting for its
// answer before the next request, for d. Latency is from sending the
// request to reading the last byte of the answer.
func drive(ctx context.Context, client *http.Client, url string, concurrency int, d time.Duration) loadResult {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		errCount atomic.Int64
		bytes    atomic.Int64
	)
	total := newHistogram()
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := newHistogram()
			for ctx.Err() == nil {
				t0 := time.Now()
				n, ok := get(client, url)
				if !ok {
					if ctx.Err() == nil {
						errCount.Add(1)
					}
					continue
				}
				_ = h.RecordValue(min(time.Since(t0).Microseconds(), maxLatencyMicros))
				bytes.Add(n)
			}
			mu.Lock()
			total.Merge(h)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return loadResult{requests: total.TotalCount(), errors: errCount.Load(), bytes: bytes.Load(), elapsed: time.Since(start), hist: total}
}

// get sends one request and reports the answer's body bytes and whether
// it was answered 200 in full. No request is cut off by the end of a
// stretch: its answer is awaited, so the stretch's CPU covers the requests
// it counts.
func get(client *http.Client, url string) (int64, bool) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, false
	}
	n, err := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return n, err == nil && resp.StatusCode == http.StatusOK
}
