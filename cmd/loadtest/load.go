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
// one connection per worker, no compression, nothing shared between
// targets.
func newClient(concurrency int) *http.Client {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// loadResult is one stretch of load on one target.
type loadResult struct {
	requests, errors int64
	elapsed          time.Duration
	hist             *hdrhistogram.Histogram
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
				if !get(client, url) {
					if ctx.Err() == nil {
						errCount.Add(1)
					}
					continue
				}
				_ = h.RecordValue(min(time.Since(t0).Microseconds(), maxLatencyMicros))
			}
			mu.Lock()
			total.Merge(h)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return loadResult{requests: total.TotalCount(), errors: errCount.Load(), elapsed: time.Since(start), hist: total}
}

// get sends one request and reports whether it was answered 200 in full.
// No request is cut off by the end of a stretch: its answer is awaited, so
// the stretch's CPU covers the requests it counts.
func get(client *http.Client, url string) bool {
	resp, err := client.Get(url)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return err == nil && resp.StatusCode == http.StatusOK
}
