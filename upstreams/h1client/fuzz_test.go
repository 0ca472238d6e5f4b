package h1client

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FuzzAnswer sends one request to a server that answers with arbitrary
// bytes: the exchange must end (an answer whose body reads to its end, or
// an error) without a panic or a hang, and a broken answer never leaves a
// connection in the pool.
func FuzzAnswer(f *testing.F) {
	for _, seed := range answerSeeds() {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, answer []byte) {
		tr := New(Options{Fallback: &recorder{}, Dial: func(context.Context, string, string) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				_ = server.SetDeadline(time.Now().Add(2 * time.Second))
				if _, err := http.ReadRequest(bufio.NewReader(server)); err != nil {
					return
				}
				_, _ = server.Write(answer)
			}()
			return client, nil
		}})
		defer tr.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://backend.test/", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return
		}
		if resp.StatusCode < 200 || resp.StatusCode > 999 {
			t.Fatalf("status %d returned as a final answer", resp.StatusCode)
		}
		_, rerr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if rerr != nil && tr.pool.get("backend.test:80") != nil {
			t.Fatal("a connection whose answer broke was kept")
		}
	})
}
