// Package uploadtest helps tests show that uploads stream: a reader of any
// size that holds nothing, a form built from it as it is read, and a sampler
// of the heap's peak.
package uploadtest

import (
	"io"
	"mime/multipart"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

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
