package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/upstreams/sandbox"
)

// sandboxGateway builds the shipped config (mode none, every upstream the
// embedded sandbox, reached through the transport of engine) over a fresh
// data directory.
func sandboxGateway(tb testing.TB, engine string) http.Handler {
	tb.Helper()
	return sandboxGatewayWith(tb, engine, nil)
}

// sandboxGatewayWith is sandboxGateway with further environment variables
// for the shipped config.
func sandboxGatewayWith(tb testing.TB, engine string, more map[string]string) http.Handler {
	tb.Helper()
	return sandboxGatewayEdit(tb, engine, more, nil)
}

// sandboxGatewayEdit is sandboxGatewayWith with the loaded config changed
// by edit (nil: unchanged) before it is validated.
func sandboxGatewayEdit(tb testing.TB, engine string, more map[string]string, edit func(*config.Config)) http.Handler {
	tb.Helper()
	dir := tb.TempDir()
	env := map[string]string{"GATEWAY_TLS": "off", "GATEWAY_DATA_DIR": dir}
	for k, v := range more {
		env[k] = v
	}
	cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
	require.NoError(tb, err)
	useEngine(cfg, engine)
	if edit != nil {
		edit(cfg)
	}
	require.NoError(tb, config.Validate(cfg))
	sb, err := sandbox.Start(dir, discardLogger())
	require.NoError(tb, err)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sb.Close(ctx)
	})
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{})
	require.NoError(tb, err)
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{},
		Duplicates: duplicates.New(time.Minute, 1000), Upstreams: NewUpstreamSet(m, sb.URL)}
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	gw, err := Build(ctx, cfg, tabled(tb, cfg), sh)
	require.NoError(tb, err)
	return gw.Handler
}

// checkEnvelope fails unless rec is a JSON envelope: a result on success,
// a coded responseCode on failure, and never the answer of a panic or an
// unexpected error.
func checkEnvelope(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	var env struct {
		Result       json.RawMessage `json:"result"`
		ResponseCode *struct {
			ID   string `json:"id"`
			Code int    `json:"code"`
		} `json:"responseCode"`
		TimeStamp string `json:"timeStamp"`
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("%s: %d answer is not JSON: %v\n%q", what, rec.Code, err, rec.Body.String())
	}
	if dec.More() {
		t.Fatalf("%s: trailing data after the envelope: %q", what, rec.Body.String())
	}
	if env.TimeStamp == "" {
		t.Fatalf("%s: no timeStamp: %s", what, rec.Body.String())
	}
	if rec.Code >= 400 {
		if env.ResponseCode == nil || env.ResponseCode.ID == "" || env.ResponseCode.Code == 0 {
			t.Fatalf("%s: %d without a coded responseCode: %s", what, rec.Code, rec.Body.String())
		}
		if env.ResponseCode.ID == "REST_DISPATCHER_FAILED" || rec.Code == 500 {
			t.Fatalf("%s: unexpected failure: %s", what, rec.Body.String())
		}
		return
	}
	if env.ResponseCode != nil || env.Result == nil {
		t.Fatalf("%s: %d must carry a result and no responseCode: %s", what, rec.Code, rec.Body.String())
	}
}

// fuzzWays are the ways a fuzzed body reaches the whole chain: the handler
// itself, and for each engine position a gateway of its own (its upstream
// transport) behind a real listener of that engine.
func fuzzWays(tb testing.TB) []via {
	tb.Helper()
	var ways []via
	for _, engine := range engines {
		h := sandboxGateway(tb, engine)
		if engine == config.HTTP1Fast {
			ways = append(ways, recorderVia(h))
		}
		ways = append(ways, listenerVia(tb, h, engine))
	}
	return ways
}

// fuzzServe sends body as JSON through every way, checking each answer.
func fuzzServe(t *testing.T, ways []via, method, target string, body []byte) {
	t.Helper()
	for _, way := range ways {
		rec := way.do(method, target, map[string]string{"Content-Type": "application/json"}, bytes.NewReader(body))
		checkEnvelope(t, way.name+": "+method+" "+target, rec)
	}
}

// bodySeeds are bodies every fuzz target starts from.
func bodySeeds() [][]byte {
	return [][]byte{
		nil, []byte(`{}`), []byte(`[]`), []byte(`null`), []byte(`"x"`), []byte(`{"Name":"Acme"}`),
		[]byte(`{"name":"Acme","totalassets":12.5,"billingcity":null}`), []byte(`[{"Id":"001000000000001AAA","Name":"B"}]`),
		[]byte(`{"Name":"\ud800"}`), []byte("{\"Name\":\"\xff\xfe\"}"), []byte(`{"Name":1e999}`),
		[]byte(`{"a":` + string(bytes.Repeat([]byte("["), 200)) + `}`), []byte(`{"Name":"a","Name":"b"}`),
		[]byte(`{"__proto__":{"admin":true}}`), []byte(`{"Name":"x"} {"Name":"y"}`), []byte(`{"Name":"x"`),
		[]byte(`{"processDefinitionKey":"loanRequest","variables":[{"name":"amount","value":1000}]}`),
		[]byte(`{"assignee":"kermit","owner":"kermit"}`), []byte(`{"disposition":"complete","variables":[]}`),
		[]byte(`{"name":"n","message":"m"}`), []byte("\x00\x01\x02"),
	}
}

func FuzzAccountsBody(f *testing.F) {
	ways := fuzzWays(f)
	for _, s := range bodySeeds() {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	targets := []struct{ method, path string }{
		{"POST", "/v2/accounts"}, {"PUT", "/v2/accounts"}, {"PUT", "/v1/accounts/001000000000001AAA"},
		{"POST", "/v1/accounts"}, {"PUT", "/v3/accounts"},
	}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		tg := targets[int(which)%len(targets)]
		fuzzServe(t, ways, tg.method, tg.path, body)
	})
}

func FuzzModelBody(f *testing.F) {
	ways := fuzzWays(f)
	for _, s := range bodySeeds() {
		f.Add(s, uint8(0))
		f.Add(s, uint8(2))
	}
	targets := []string{"/v1/settings/model/Account", "/v2/settings/model/Account", "/v2/settings/model/Contact", "/v3/settings/model/Account"}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		target := targets[int(which)%len(targets)]
		fuzzServe(t, ways, "GET", target, body)
	})
}

func FuzzWorkflowBody(f *testing.F) {
	ways := fuzzWays(f)
	for _, s := range bodySeeds() {
		for i := range uint8(4) {
			f.Add(s, i)
		}
	}
	targets := []struct{ method, path string }{
		{"POST", "/v2/process-instances"}, {"PUT", "/v2/tasks/1"}, {"POST", "/v2/tasks/1/claims"},
		{"POST", "/v2/tasks/1/completions"}, {"POST", "/v1/messages"},
	}
	f.Fuzz(func(t *testing.T, body []byte, which uint8) {
		tg := targets[int(which)%len(targets)]
		fuzzServe(t, ways, tg.method, tg.path, body)
	})
}
