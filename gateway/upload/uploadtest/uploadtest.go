// Package uploadtest helps tests show that uploads stream: a reader of any
// size that holds nothing, a form built from it as it is read, a sampler of
// the heap's peak, and the harness of the 200 MiB upload that the upload
// reader's and the files route's memory tests both send.
package uploadtest

import (
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The memory tests' upload: whatever its size, the path from the client's
// body to the backend must keep the HeapInuse peak under HeapBound.
const (
	BigUploadBytes = 200 << 20
	HeapBound      = 32 << 20
)

// CreatedID is the id Backend answers for the uploaded file.
const CreatedID = "0D5xx0000000001"

// Backend is a batch upload backend that reads every request's body to the
// end, counting its bytes, and answers one created file.
type Backend struct {
	*httptest.Server
	received atomic.Int64
}

// NewBackend starts a Backend, closed when tb ends.
func NewBackend(tb testing.TB) *Backend {
	b := &Backend{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		b.received.Store(n)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = io.WriteString(w, `{"hasErrors":false,"results":[{"statusCode":201,"result":{"id":"`+CreatedID+`"}}]}`)
	}))
	tb.Cleanup(b.Close)
	return b
}

// CheckBounded runs send, which passes a BigUploadBytes upload on to b,
// under a heap sampler (after a collection), logs the peak, and fails tb
// when b did not get the whole file or the peak reached HeapBound. what
// names the path measured.
func CheckBounded(tb testing.TB, b *Backend, what string, send func()) {
	tb.Helper()
	runtime.GC()
	stop := HeapPeak()
	var peak uint64
	func() {
		defer func() { peak = stop() }() // also when send fails tb
		send()
	}()
	assert.Greater(tb, b.received.Load(), int64(BigUploadBytes), "the backend got the whole file")
	tb.Logf("HeapInuse peak over a %d MiB upload %s: %.1f MiB", BigUploadBytes>>20, what, float64(peak)/(1<<20))
	assert.Less(tb, peak, uint64(HeapBound), "HeapInuse peak")
}

// PatternReader yields n bytes of a fixed pattern without holding them.
func PatternReader(n int64) io.Reader { return &patternReader{left: n} }

type patternReader struct{ left int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	p.left -= int64(len(b))
	return len(b), nil
}

// Form returns a multipart/form-data body of a subjectId field and one file
// part of n pattern bytes, written as the body is read, and the body's
// Content-Type. A failure to write reaches the reader as its error; closing
// the body ends the writing early.
func Form(subjectID, filename string, n int64) (body io.ReadCloser, contentType string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		pw.CloseWithError(writeForm(mw, subjectID, filename, n))
	}()
	return pr, mw.FormDataContentType()
}

func writeForm(mw *multipart.Writer, subjectID, filename string, n int64) error {
	if err := mw.WriteField("subjectId", subjectID); err != nil {
		return err
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		return err
	}
	if _, err := io.Copy(fw, PatternReader(n)); err != nil {
		return err
	}
	return mw.Close()
}

// HeapPeak samples runtime HeapInuse every 5ms until the returned stop is
// called, which returns the peak seen.
func HeapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}
