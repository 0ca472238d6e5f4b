package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestExpand(t *testing.T) {
	t.Parallel()
	getenv := env(map[string]string{"SET": "value", "EMPTY": ""})
	tests := []struct {
		desc, in, want, err string
	}{
		{desc: "plain", in: "abc", want: "abc"},
		{desc: "set variable", in: "x${SET}y", want: "xvaluey"},
		{desc: "unset without default is named", in: "a${UNSET}b${EMPTY}", err: "${UNSET}, ${EMPTY} are not set and have no default"},
		{desc: "default when unset", in: "${UNSET:-dflt}", want: "dflt"},
		{desc: "default when empty", in: "${EMPTY:-dflt}", want: "dflt"},
		{desc: "set wins over default", in: "${SET:-dflt}", want: "value"},
		{desc: "default may hold colons", in: "${UNSET:-127.0.0.1:8443}", want: "127.0.0.1:8443"},
		{desc: "dollar dollar is a dollar", in: "$${SET}", want: "${SET}"},
		{desc: "lone dollar", in: "a$b", want: "a$b"},
		{desc: "unterminated", in: "${SET", err: "unterminated"},
		{desc: "bad name", in: "${1X}", err: "invalid variable name"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := Expand(tt.in, getenv)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		yaml  string
		wants []string
	}{
		{desc: "unknown keys at every depth are all reported with their paths",
			yaml: "server:\n  listn: x\n  tls:\n    mod: off\nroutes:\n  - path: /{version}/a\n    kind: endpoints\n    colour: red\nextra: 1\n",
			wants: []string{"server.listn (line 2): unknown key; did you mean listen?", "server.tls.mod (line 4): unknown key; did you mean mode?",
				"routes[0].colour (line 8): unknown key; routes[0] takes path, kind,", "extra (line 9): unknown key; (root) takes server, versions,"}},
		{desc: "unknown key under a map value", yaml: "upstreams:\n  accounts:\n    url: sandbox\n    tiemout: 1s\n",
			wants: []string{"upstreams.accounts.tiemout (line 4): unknown key; did you mean timeout?"}},
		{desc: "bad expansion names its path", yaml: "server:\n  listen: ${BAD\n", wants: []string{"server.listen (line 2): unterminated"}},
		{desc: "empty file", yaml: "", wants: []string{"config is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.yaml), env(nil))
			require.Error(t, err)
			for _, w := range tt.wants {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParseExpandsTypedValues(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte("server:\n  limits:\n    maxBodyBytes: ${MAX}\n  timeouts:\n    read: ${READ:-7s}\nerrors:\n  exposeSystemMessages: ${EXPOSE:-false}\n"),
		env(map[string]string{"MAX": "2048", "EXPOSE": "true"}))
	require.NoError(t, err)
	assert.Equal(t, int64(2048), cfg.Server.Limits.MaxBodyBytes)
	assert.Equal(t, 7*time.Second, cfg.Server.Timeouts.Read)
	assert.True(t, cfg.Errors.ExposeSystemMessages)
	assert.Equal(t, "127.0.0.1:8443", cfg.Server.Listen, "defaults filled")
}

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte(`
server:
  listen: "0.0.0.0:8443"
  tls: {mode: files}
versions: [v1, x2, v1]
auth: {mode: none}
errors: {statusMode: sometimes}
log: {format: xml, collectorURL: "ftp://x", maxRetries: 12,
  collector: {url: "http://c", timeout: 1s, retry: {attempts: 2, budget: 2}, options: {a: b}}}
upstreams:
  accounts: {url: sandbox, transport: quick}
`), env(nil))
	require.NoError(t, err)
	verr := Validate(cfg)
	require.Error(t, verr)
	for _, w := range []string{
		"server.tls.certFile: required", "server.tls.keyFile: required",
		`versions[1]: "x2" is not v followed by a number`, `versions[2]: "v1" is listed twice`,
		"auth.mode: none is allowed only on a loopback listener",
		"errors.statusMode: must be http or always200", `log.format: must be one of text, jsonl, json with sink http, not "xml"`,
		"log.collectorURL: must be an absolute http(s) URL", "log.maxRetries: must be at most 9",
		"log.collector.url: is set by log.collectorURL", "log.collector.timeout: is set by log.timeout",
		"log.collector.retry.attempts: is set by log.maxRetries", "log.collector.options: the collector's client takes no options",
		"log.collector.retry.budget: must be between 0 and 1",
		`upstreams.accounts.transport: must be fast or std, not "quick"`,
	} {
		assert.Contains(t, verr.Error(), w)
	}
}

func TestValidateCallLogSinksAndQueue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, log string
		wants     []string
	}{
		{desc: "every sink and the disk queue", log: `{sink: loki, format: jsonl, queue: disk, compress: gzip, senders: 8,
  headers: {X-Scope-OrgID: "${TENANT:-t1}"}, loki: {labels: {env: prod}}, disk: {fsync: always, maxBytes: 1048576}}`},
		{desc: "elasticsearch", log: `{sink: elasticsearch, elasticsearch: {index: calls-v1}, shutdownFlush: 30s}`},
		{desc: "otlp", log: `{sink: otlp}`},
		{desc: "json array for Fluent Bit", log: `{sink: http, format: json}`},
		{desc: "problems", log: `{sink: kafka, queue: redis, compress: zstd, senders: -1, maxBatchSize: 10, batchSize: 20,
  headers: {"Content-Type": x, "bad name": y, X-Token: a}, collector: {auth: {headers: {x-token: b}}},
  disk: {fsync: sometimes, maxBytes: 10}, elasticsearch: {index: "a b"}}`, wants: []string{
			`log.sink: must be http, loki, elasticsearch or otlp, not "kafka"`, `log.queue: must be memory or disk, not "redis"`,
			`log.compress: must be none or gzip, not "zstd"`, "log.senders: must be between 1 and 64",
			"log.maxBatchSize: maxBatchSize must be at least batchSize", "log.headers.Content-Type: is set by the call log",
			"log.headers.bad name: is not a header name", "log.headers.X-Token: is also set in log.collector.auth.headers",
			`log.disk.fsync: must be always, interval or never, not "sometimes"`, "log.disk.maxBytes: must be at least 1048576",
			"log.elasticsearch.index: must be an index name"}},
		{desc: "loki labels and formats", log: `{sink: loki, format: json, loki: {labels: {route: x, "a-b": y}}}`, wants: []string{
			`log.format: must be one of text, jsonl with sink loki, not "json"`, "log.loki.labels.route: must match",
			"log.loki.labels.a-b: must match"}},
		{desc: "more senders than the bulkhead", log: `{senders: 8, collector: {maxConcurrent: 4}}`,
			wants: []string{"log.senders: must be at most log.collector.maxConcurrent (4)"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assertProblems(t, "versions: [v1]\nlog: "+tt.log+"\n", tt.wants)
		})
	}
	cfg, err := Parse([]byte("server: {dataDir: /var/lib/gw}\nlog: {sink: loki}\n"), env(nil))
	require.NoError(t, err)
	assert.Equal(t, "/var/lib/gw/calllog", cfg.Log.Disk.Dir, "the disk queue lives under server.dataDir")
	assert.Equal(t, map[string]string{"service_name": "restgate"}, cfg.Log.Loki.Labels)
	assert.Equal(t, 5*time.Second, cfg.Log.ShutdownFlush)
	assert.Equal(t, LogDisk{Dir: "/var/lib/gw/calllog", MaxBytes: 256 << 20, Fsync: "interval", FsyncInterval: time.Second}, cfg.Log.Disk)
}

func TestHTTPEngines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, yaml      string
		server, account string
		err             string
	}{
		{desc: "fast by default", yaml: "upstreams: {accounts: {url: sandbox}}", server: HTTP1Fast, account: ""},
		{desc: "std on both sides", yaml: "server: {http1: std}\nupstreams: {accounts: {url: sandbox, transport: std}}",
			server: HTTP1Std, account: "std"},
		{desc: "unknown engine", yaml: "server: {http1: h2}", err: `server.http1: must be fast or std, not "h2"`},
		{desc: "engine names are exact", yaml: "server: {http1: Std}", err: `server.http1: must be fast or std, not "Std"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse([]byte("versions: [v1]\n"+tt.yaml), env(nil))
			require.NoError(t, err)
			verr := Validate(cfg)
			if tt.err != "" {
				assert.ErrorContains(t, verr, tt.err)
				return
			}
			require.NoError(t, verr)
			assert.Equal(t, tt.server, cfg.Server.HTTP1)
			assert.Equal(t, tt.account, cfg.Upstreams["accounts"].Transport, "the upstream's default is applied by its client")
		})
	}
}

func TestValidateAuth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, yaml, want string
	}{
		{desc: "jwt needs a secret or jwks", yaml: "auth: {mode: jwt}", want: "auth.jwt: jwt mode needs"},
		{desc: "short secret", yaml: "auth: {mode: jwt, jwt: {secret: short}}", want: "auth.jwt.secret: must be at least 32 bytes"},
		{desc: "apikey needs keys", yaml: "auth: {mode: apikey}", want: "auth.apiKeys: apikey mode needs at least one key"},
		{desc: "api key must be a digest", yaml: "auth: {mode: apikey, apiKeys: [{sha256: plaintext, userId: u}]}", want: "auth.apiKeys[0].sha256"},
		{desc: "unknown mode", yaml: "auth: {mode: magic}", want: "auth.mode: must be none, jwt or apikey"},
		{desc: "key set refreshed too often", yaml: "auth: {mode: jwt, jwt: {jwksURL: 'https://idp/keys', jwksRefresh: 1s}}", want: "auth.jwt.jwksRefresh: must be between 10s and 24h"},
		{desc: "verified tokens bounded", yaml: "auth: {mode: jwt, jwt: {jwksURL: 'https://idp/keys', verifiedTokens: -1}}", want: "auth.jwt.verifiedTokens: must be between 1 and 1000000"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse([]byte("versions: [v1]\n"+tt.yaml), env(nil))
			require.NoError(t, err)
			assert.ErrorContains(t, Validate(cfg), tt.want)
		})
	}
}

func TestShippedConfigIsValid(t *testing.T) {
	t.Parallel()
	cfg, err := Load(filepath.Join("..", "..", "config.yaml"), env(nil))
	require.NoError(t, err)
	require.NoError(t, Validate(cfg))
	assert.Equal(t, []string{"v1", "v2", "v3"}, cfg.Versions)
	assert.Equal(t, TLSAuto, cfg.Server.TLS.Mode)
	assert.Equal(t, AuthNone, cfg.Auth.Mode)
	for _, name := range []string{"accounts", "workflow", "data", "feed"} {
		assert.Equal(t, "sandbox", cfg.Upstreams[name].URL, name)
	}
}

func TestShippedConfigReadsTheEnvironment(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "config.yaml"))
	require.NoError(t, err)
	for _, v := range []string{"GATEWAY_LISTEN", "GATEWAY_ADMIN_LISTEN", "GATEWAY_TLS", "GATEWAY_TLS_CERT", "GATEWAY_TLS_KEY",
		"GATEWAY_DATA_DIR", "GATEWAY_AUTH_MODE", "GATEWAY_JWT_SECRET", "GATEWAY_JWKS_URL", "GATEWAY_LOG_COLLECTOR_URL",
		"ACCOUNTS_URL", "WORKFLOW_URL", "DATA_URL", "FEED_URL", "WORKFLOW_USER", "WORKFLOW_PASSWORD",
		"WORKFLOW_ENGINE_VERSION", "DATA_ACCESS_TOKEN", "DATA_GATEWAY_KEY", "DATA_APP_NAME", "DATA_PROVIDER_NAME"} {
		assert.True(t, strings.Contains(string(raw), "${"+v), v)
	}
	cfg, err := Load(filepath.Join("..", "..", "config.yaml"), env(map[string]string{
		"GATEWAY_LISTEN": "0.0.0.0:8443", "GATEWAY_TLS": "off", "GATEWAY_AUTH_MODE": "jwt",
		"GATEWAY_JWT_SECRET": strings.Repeat("s", 32), "ACCOUNTS_URL": "http://crm:8080"}))
	require.NoError(t, err)
	require.NoError(t, Validate(cfg))
	assert.Equal(t, "0.0.0.0:8443", cfg.Server.Listen)
	assert.Equal(t, TLSOff, cfg.Server.TLS.Mode)
	assert.Equal(t, "http://crm:8080", cfg.Upstreams["accounts"].URL)
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("server: {listen: ${X:-a:1}}\nroutes: [{path: /{version}/a, kind: endpoints}]"))
	f.Add([]byte("a: [1, {b: *c}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, env(map[string]string{"X": "y"}))
		if err == nil {
			_ = Validate(cfg)
		}
	})
}

func TestRateLimitBurstDefault(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte("versions: [v1]\nauth: {rateLimit: {requestsPerSecond: 0.5}}\n"), env(nil))
	require.NoError(t, err)
	assert.Equal(t, 1, cfg.Auth.RateLimit.Burst, "a slow rate still allows one request")
	require.NoError(t, Validate(cfg))
}

// assertProblems checks that yaml parses and is valid when wants is empty,
// and otherwise that validating it reports each of wants.
func assertProblems(t *testing.T, yaml string, wants []string) {
	t.Helper()
	cfg, err := Parse([]byte(yaml), env(nil))
	require.NoError(t, err)
	err = Validate(cfg)
	if len(wants) == 0 {
		require.NoError(t, err)
		return
	}
	require.Error(t, err)
	for _, w := range wants {
		assert.Contains(t, err.Error(), w)
	}
}

// assertExactProblems checks that yaml, parsed then validated, reports
// exactly wants (each contained in one problem; none when wants is
// empty), whether the parse or the validation finds them, and returns
// the error.
func assertExactProblems(t *testing.T, yaml string, wants []string) error {
	t.Helper()
	cfg, err := Parse([]byte(yaml), env(nil))
	if err == nil {
		err = Validate(cfg)
	}
	if len(wants) == 0 {
		assert.NoError(t, err)
		return nil
	}
	require.Error(t, err)
	assert.Len(t, Problems(err), len(wants), err.Error())
	for _, w := range wants {
		assert.ErrorContains(t, err, w)
	}
	return err
}
