package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/mapping"
)

// TestMain lets the test binary serve the roles the harness re-executes
// itself in (backend, proxy).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// smokeRun runs the harness with args (-smoke -json among them) as a test
// does, unless -short (why says what it would start) or, with redis,
// redis-server is missing, and returns its report.
func smokeRun(t *testing.T, why string, redis bool, args ...string) report {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	if redis {
		redistest.Require(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, log bytes.Buffer
	code := run(ctx, args, &out, &log)
	require.Equal(t, 0, code, log.String())
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	return rep
}

func TestSmokeRun(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "gateway.prof")
	allocs := filepath.Join(t.TempDir(), "allocs.prof")
	rep := smokeRun(t, "starts four processes and builds the gateway", false, "-smoke", "-json", "-cpuprofile", profile,
		"-allocprofile", allocs, "-console", "-rs256")
	require.Len(t, rep.Targets, 6)
	for _, tr := range rep.Targets {
		assert.Positive(t, tr.Requests, tr.Name)
		assert.Zero(t, tr.Errors, tr.Name)
		assert.Positive(t, tr.P99Millis, tr.Name)
		assert.GreaterOrEqual(t, tr.P999Millis, tr.P99Millis, tr.Name)
		assert.Positive(t, tr.CPUMicrosPerR, "%s: its process's CPU is read", tr.Name)
		assert.Len(t, tr.RoundRPS, 2, tr.Name)
	}
	assert.Equal(t, "gateway", rep.Targets[2].Name)
	assert.Equal(t, "gateway-std", rep.Targets[3].Name)
	assert.Equal(t, targetGatewayNoRecord, rep.Targets[4].Name, "-console adds the gateway without the console's recording")
	assert.Equal(t, targetGatewayRS256, rep.Targets[5].Name, "-rs256 adds the gateway verifying RS256 tokens")
	require.NotNil(t, rep.RS256)
	assert.Positive(t, rep.RS256.Ratio.CPUPerRequest)
	require.NotNil(t, rep.ConsoleRecording)
	assert.Positive(t, rep.ConsoleRecording.Ratio.CPUPerRequest)
	assert.Positive(t, rep.GatewayVsProxy.CPUPerRequest)
	require.NotNil(t, rep.GatewayStdVsProxy)
	assert.Positive(t, rep.GatewayStdVsProxy.CPUPerRequest)
	assert.GreaterOrEqual(t, rep.CallLogLines, rep.Targets[2].Requests, "every gateway call is logged to the collector")
	for _, path := range []string{profile, allocs} {
		prof, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Greater(t, len(prof), 2)
		assert.Equal(t, []byte{0x1f, 0x8b}, prof[:2], "%s: a gzipped pprof profile", path)
	}
}

// -tracing adds a gateway tracing every request, exporting to the span sink.
func TestSmokeRunTracing(t *testing.T) {
	rep := smokeRun(t, "starts four processes and builds the gateway", false, "-smoke", "-json", "-std=false", "-tracing", "1")
	require.Len(t, rep.Targets, 4)
	traced := rep.Targets[3]
	assert.Equal(t, "gateway, traced 100%", traced.Name)
	assert.Positive(t, traced.Requests)
	assert.Zero(t, traced.Errors)
	require.NotNil(t, rep.Tracing)
	assert.Contains(t, rep.Tracing.VsGateway, traced.Name)
	// The SDK drops spans rather than slow a request when its queue is full,
	// so only their arrival is asserted.
	assert.Positive(t, rep.Tracing.Spans, "the traced gateway's spans reach the sink")
}

// -cluster adds the gateway on the redis store, both gateways rate-limiting
// without ever refusing, and reports what Redis cost.
func TestSmokeRunCluster(t *testing.T) {
	rep := smokeRun(t, "starts four processes and redis-server, and builds the gateway", true, "-smoke", "-json", "-cluster", "-std=false")
	require.Len(t, rep.Targets, 4)
	assert.Equal(t, "gateway-redis", rep.Targets[3].Name)
	for _, tr := range rep.Targets {
		assert.Positive(t, tr.Requests, tr.Name)
		assert.Zero(t, tr.Errors, "%s: a limit never reached refuses nothing", tr.Name)
	}
	require.NotNil(t, rep.Cluster)
	assert.Positive(t, rep.Cluster.RedisCPUMicrosPerR, "redis-server's CPU is read")
	assert.Positive(t, rep.Cluster.RedisVsMemory.CPUPerRequest)
}

// -gzip: the client asks for gzip and the gateway compresses; the account
// list it reads shrinks several times against the backend's, which does
// not compress.
func TestSmokeRunGzip(t *testing.T) {
	rep := smokeRun(t, "starts three processes and builds the gateway", false, "-smoke", "-json", "-gzip", "-std=false", "-nginx=false")
	require.Len(t, rep.Targets, 3)
	backend, gw := rep.Targets[0], rep.Targets[2]
	assert.Zero(t, gw.Errors)
	assert.Greater(t, backend.BytesPerAnswer, 10000.0, "the backend's account list, as it is")
	assert.Less(t, gw.BytesPerAnswer, backend.BytesPerAnswer/3, "the gateway's, gzipped")
}

// -openloop sends every target but the backend a share of the proxy's
// closed-loop rate on a schedule and reports their latency percentiles;
// -nopgo adds the gateway built without its profile, -gogc the gateway at
// another GOGC.
func TestSmokeRunOpenLoopAndNoPGO(t *testing.T) {
	rep := smokeRun(t, "starts five processes and builds the gateway twice", false, "-smoke", "-json", "-openloop", "0.3", "-nopgo",
		"-gogc", "400", "-std=false", "-nginx=false")
	require.Len(t, rep.Targets, 5)
	assert.Equal(t, targetGatewayNoPGO, rep.Targets[3].Name)
	assert.Equal(t, "gateway-gogc400", rep.Targets[4].Name)
	for _, tr := range rep.Targets[3:] {
		assert.Positive(t, tr.Requests, tr.Name)
	}
	require.NotNil(t, rep.PGO)
	assert.Positive(t, rep.PGO.Ratio.CPUPerRequest)
	require.NotNil(t, rep.GOGC)
	assert.Positive(t, rep.GOGC.Ratio.CPUPerRequest)
	ol := rep.OpenLoop
	require.NotNil(t, ol)
	assert.InDelta(t, 0.3*ol.ProxyRPS, ol.Rate, 0.01)
	require.Len(t, ol.Targets, 4, "the backend is not a target of the open loop")
	for _, tr := range ol.Targets {
		assert.Positive(t, tr.Due, tr.Name)
		assert.Equal(t, tr.Due, tr.Answered+tr.Errors, "%s: every request due was sent", tr.Name)
		assert.Zero(t, tr.Errors, tr.Name)
		assert.Positive(t, tr.P50Millis, tr.Name)
		assert.LessOrEqual(t, tr.P50Millis, tr.P90Millis, tr.Name)
		assert.LessOrEqual(t, tr.P90Millis, tr.P99Millis, tr.Name)
		assert.LessOrEqual(t, tr.P99Millis, tr.P999Millis, tr.Name)
		assert.LessOrEqual(t, tr.P999Millis, tr.MaxMillis, tr.Name)
	}
	assert.Positive(t, ol.GatewayVsProxy.P99)
	assert.Nil(t, ol.GatewayVsNginx, "no nginx measured")
}

// -h2 drives the TLS targets over HTTP/2 with h2load, whose figures
// come with the CPU the harness read around each stretch.
func TestSmokeRunH2(t *testing.T) {
	if _, err := exec.LookPath("h2load"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("h2load is not installed, and CI installs it (.ci/run): %v", err)
		}
		t.Skip("h2load is not installed: apt-get install -y nghttp2-client")
	}
	rep := smokeRun(t, "starts four processes and builds the gateway", false, "-smoke", "-json", "-tls", "-h2", "-std=false", "-nginx=false")
	require.NotNil(t, rep.H2)
	require.Len(t, rep.H2.Targets, 2)
	for _, tr := range rep.H2.Targets {
		assert.Positive(t, tr.Requests, tr.Name)
		assert.Zero(t, tr.Errors, tr.Name)
		assert.Positive(t, tr.CPUMicrosPerR, tr.Name)
		assert.Positive(t, tr.MeanMillis, tr.Name)
	}
	assert.Equal(t, targetGatewayTLS, rep.H2.Targets[1].Name)
	assert.Positive(t, rep.H2.GatewayVsProxy.CPUPerRequest)
}

func TestFlagsRefuseWhatIsNotLoopbackOrBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		args []string
	}{
		{desc: "a remote host", args: []string{"-host", "10.0.0.1"}},
		{desc: "a host name", args: []string{"-host", "example.com"}},
		{desc: "the wildcard address", args: []string{"-host", "0.0.0.0"}},
		{desc: "no rounds", args: []string{"-rounds", "0"}},
		{desc: "no time", args: []string{"-duration", "0s"}},
		{desc: "an unbounded run", args: []string{"-rounds", "1000", "-duration", "10s"}},
		{desc: "too many in flight", args: []string{"-concurrency", "100000"}},
		{desc: "an open loop above the proxy's rate", args: []string{"-openloop", "1.5"}},
		{desc: "HTTP/2 without TLS", args: []string{"-h2"}},
		{desc: "a sample ratio of 0", args: []string{"-tracing", "0"}},
		{desc: "a sample ratio above 1", args: []string{"-tracing", "0.5,2"}},
		{desc: "too many traced targets", args: []string{"-tracing", "0.1,0.2,0.3,0.4"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var out, log bytes.Buffer
			assert.Equal(t, 2, run(context.Background(), tt.args, &out, &log))
			assert.Empty(t, out.String())
		})
	}
}

func TestProxyRefusesARemoteBackend(t *testing.T) {
	t.Parallel()
	_, err := newProxy("http://192.0.2.1:8080")
	assert.Error(t, err)
	_, err = newProxy("http://127.0.0.1:8080")
	assert.NoError(t, err)
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, line string
		want       time.Duration
		wantErr    bool
	}{
		{desc: "plain", line: "42 (gateway) S 1 42 42 0 -1 4194560 1000 0 0 0 250 30 0 0 20 0 8 0 100 0 0",
			want: 280 * 10 * time.Millisecond},
		{desc: "name with spaces and parentheses", line: "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0",
			want: 7 * 10 * time.Millisecond},
		{desc: "truncated", line: "7 (x) R 1 7", wantErr: true},
		{desc: "no name", line: "7 x R", wantErr: true},
		{desc: "not a number", line: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 a 4 0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := parseStat(tt.line, 10*time.Millisecond)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add("42 (gateway) S 1 42 42 0 -1 4194560 1000 0 0 0 250 30 0 0 20 0 8 0 100 0 0")
	f.Add("7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0")
	f.Add(")")
	f.Fuzz(func(t *testing.T, line string) {
		d, err := parseStat(line, 10*time.Millisecond)
		if err == nil && d < 0 {
			t.Fatalf("negative CPU time %s from %q", d, line)
		}
	})
}

func TestParseIO(t *testing.T) {
	t.Parallel()
	const proc = "rchar: 4112\nwchar: 920\nsyscr: 12\nsyscw: 7\nread_bytes: 0\nwrite_bytes: 0\ncancelled_write_bytes: 0\n"
	tests := []struct {
		desc, text string
		want       int64
		wantErr    bool
	}{
		{desc: "proc", text: proc, want: 19},
		{desc: "no final newline", text: "syscr: 1\nsyscw: 2", want: 3},
		{desc: "no syscw", text: "syscr: 1\n", wantErr: true},
		{desc: "syscr twice", text: "syscr: 1\nsyscr: 2\n", wantErr: true},
		{desc: "negative", text: "syscr: -1\nsyscw: 2\n", wantErr: true},
		{desc: "not a number", text: "syscr: x\nsyscw: 2\n", wantErr: true},
		{desc: "empty", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := parseIO(tt.text)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseIO(f *testing.F) {
	f.Add("syscr: 12\nsyscw: 7\n")
	f.Add("syscr: 1\nsyscr: 2\n")
	f.Fuzz(func(t *testing.T, text string) {
		n, err := parseIO(text)
		if err == nil && n < 0 {
			t.Fatalf("negative count %d from %q", n, text)
		}
	})
}

func TestCheckEnvelope(t *testing.T) {
	t.Parallel()
	h := backendHandler(false)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, backendPath, nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var accounts []map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &accounts))
	require.Len(t, accounts, 20)
	assert.Len(t, accounts[0], 24, "every field of the Account model")

	fields := make([]string, 0, len(accounts[0]))
	for f := range accounts[0] {
		fields = append(fields, f)
	}
	km, err := mapping.DeriveKeyMap(fields)
	require.NoError(t, err)
	mapped, err := mapping.Rewrite(nil, rec.Body.Bytes(), mapping.Options{Map: km, DropNulls: true})
	require.NoError(t, err)
	assert.NoError(t, checkEnvelope([]byte(`{"result":`+string(mapped)+`,"timeStamp":"t","mapKeysFlag":true}`)), "v2's answer")

	unmapped := []byte(`{"result":` + rec.Body.String() + `,"timeStamp":"t","mapKeysFlag":true}`)
	assert.Error(t, checkEnvelope(unmapped), "internal names are not v2's")
	assert.Error(t, checkEnvelope([]byte(`{"result":`+string(mapped)+`,"timeStamp":"t"}`)), "no mapKeysFlag")
	assert.Error(t, checkEnvelope(rec.Body.Bytes()), "a bare list is not an envelope")
	assert.Error(t, checkEnvelope([]byte(`{"result":[],"timeStamp":"t","mapKeysFlag":true}`)))

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/other", nil))
	assert.Equal(t, http.StatusNotFound, rec.Code)
}
