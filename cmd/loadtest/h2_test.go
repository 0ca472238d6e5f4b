package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An h2load run's output, its summary as nghttp2 1.52 prints it.
const h2loadOutput = `starting benchmark...
spawning thread #0: 4 total client(s). Timing-based test with 0s of warm-up time and 4s of main duration for client(s).
Warm-up phase is over for thread #0.
Main benchmark duration is started for thread #0.
TLS Protocol: TLSv1.3
Cipher: TLS_AES_128_GCM_SHA256
Server Temp Key: X25519 253 bits
Application protocol: h2
Main benchmark duration is over for thread #0. Stopping all clients.
Stopped all clients for thread #0

finished in 4.00s, 9671.25 req/s, 101.23MB/s
requests: 38685 total, 38701 started, 38685 done, 38680 succeeded, 7 failed, 2 errored, 0 timeout
status codes: 38678 2xx, 2 3xx, 5 4xx, 0 5xx
traffic: 404.93MB (424600000) total, 1.20MB (1258000) headers (space savings 93.12%), 403.12MB (422700000) data
                     min         max         mean         sd        +/- sd
time for request:      321us     15.12ms      1.63ms       1.01ms    78.12%
time for connect:     3.21ms      4.01ms      3.60ms       351us    50.00%
time to 1st byte:     5.12ms      6.33ms      5.70ms       520us    50.00%
req/s           :    2400.11     2435.20     2417.81       15.10    50.00%
`

func TestParseH2load(t *testing.T) {
	t.Parallel()
	r, err := parseH2load(h2loadOutput)
	require.NoError(t, err)
	assert.Equal(t, h2Result{requests: 38678, errors: 7 + 2, mean: 1630 * time.Microsecond}, r,
		"2xx only; failed (4xx, errored) and the 3xx h2load counts as succeeded are errors")

	for _, tt := range []struct{ desc, out string }{
		{desc: "nothing", out: ""},
		{desc: "a connection refused", out: "starting benchmark...\nclient could not connect to host\n"},
		{desc: "no time line", out: "requests: 1 total, 1 started, 1 done, 1 succeeded, 0 failed, 0 errored, 0 timeout\nstatus codes: 1 2xx, 0 3xx, 0 4xx, 0 5xx\n"},
		{desc: "a count past int64", out: "requests: 1 total, 1 started, 1 done, 99999999999999999999 succeeded, 0 failed, 0 errored, 0 timeout\nstatus codes: 1 2xx, 0 3xx, 0 4xx, 0 5xx\ntime for request:  1us 2us 1.5us 0us 0%\n"},
	} {
		_, err := parseH2load(tt.out)
		assert.Error(t, err, tt.desc)
	}
}

// FuzzParseH2load: whatever h2load prints, the summary is read or refused,
// never a panic, and never a negative count.
func FuzzParseH2load(f *testing.F) {
	f.Add(h2loadOutput)
	f.Add("requests: 1 total, 1 started, 1 done, 0 succeeded, 1 failed, 1 errored, 0 timeout\nstatus codes: 0 2xx, 0 3xx, 1 4xx, 0 5xx\ntime for request: 1us 1us 1us 0us 0%\n")
	f.Fuzz(func(t *testing.T, out string) {
		r, err := parseH2load(out)
		if err != nil {
			return
		}
		if r.requests < 0 || r.errors < 0 || r.mean < 0 {
			t.Fatalf("negative figures %+v from %q", r, out)
		}
	})
}
