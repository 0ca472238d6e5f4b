package config

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// report decodes yaml, validates it and returns every problem's line.
func reportOf(t *testing.T, yaml string, getenv func(string) string) []string {
	t.Helper()
	f, err := Decode([]byte(yaml), getenv)
	require.NoError(t, err)
	return Problems(f.Report(Validate(f.Config)))
}

func TestReportEveryProblemInFileOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, yaml string
		env        map[string]string
		want       []string
	}{
		{desc: "types, durations and unknown keys together, in file order",
			yaml: "versions: [v1]\nserver:\n  timeouts: {read: 30}\n  colour: red\n  limits:\n    maxURLLength: many\nmapping: {maxDepth: 1.5}\n",
			want: []string{
				"server.timeouts.read (line 3): 30 has no unit: write it as 30s, 30ms or 30m (units: ns, us, ms, s, m, h)",
				"server.colour (line 4): unknown key; server takes listen, adminListen, tls, timeouts, limits, dataDir, pprof, http1, publicURL, contact, cors, compression",
				`server.limits.maxURLLength (line 6): must be an integer, not "many"`,
				"mapping.maxDepth (line 7): must be a whole number, not 1.5",
			}},
		{desc: "a refused value is not reported again by validation, which sees its default",
			yaml: "versions: [v1]\nserver:\n  listen: [a, b]\n  tls: {mode: \"${TLS}\"}\n",
			want: []string{
				`server.listen (line 3): must be a string, not a list`,
				"server.tls.mode (line 4): ${TLS} is not set and has no default (set it, or write ${TLS:-default} for an optional value)",
			}},
		{desc: "a key given twice", yaml: "versions: [v1]\nerrors:\n  statusMode: http\n  statusMode: always200\n",
			want: []string{"errors.statusMode (line 4): given twice (first on line 3)"}},
		{desc: "a problem of a key not in the file comes last, without a line",
			yaml: "errors: {statusMode: sometimes}\n",
			want: []string{`errors.statusMode (line 1): must be http or always200, not "sometimes"`, "versions: at least one version must be served"}},
		{desc: "a validation problem takes the line of the nearest key in the file",
			yaml: "versions: [v1]\nauth:\n  mode: jwt\n",
			want: []string{"auth.jwt (line 2): jwt mode needs a secret (GATEWAY_JWT_SECRET) or a jwksURL (GATEWAY_JWKS_URL)"}},
		{desc: "a mapping where a list belongs, and a scalar where a mapping does",
			yaml: "versions: {v1: yes}\nserver: 8443\n",
			want: []string{
				"versions (line 1): must be a list of strings, not a mapping",
				`server (line 2): must be a mapping of keys (listen, adminListen, tls, timeouts, limits, dataDir, pprof, http1, publicURL, contact, cors, compression), not "8443"`,
			}},
		{desc: "a set variable fills a typed value", yaml: "versions: [v1]\nserver:\n  limits: {maxURLLength: \"${N}\"}\n",
			env: map[string]string{"N": "oops"}, want: []string{`server.limits.maxURLLength (line 3): must be an integer, not "oops"`}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, reportOf(t, tt.yaml, env(tt.env)))
		})
	}
}

func TestProblemsOfOtherErrors(t *testing.T) {
	t.Parallel()
	f, err := Decode([]byte("versions: [v1]\nupstreams:\n  data:\n    url: x\n"), env(nil))
	require.NoError(t, err)
	got := Problems(f.Report(errors.Join(errors.New("upstreams.data.url: refused\nroutes[3]: absent"), errors.New("decoding: a message about no key"))))
	assert.Equal(t, []string{"upstreams.data.url (line 4): refused", "decoding: a message about no key", "routes[3]: absent"}, got)
}

func TestSyntaxErrorHasItsLine(t *testing.T) {
	t.Parallel()
	_, err := Decode([]byte("versions: [v1]\nserver:\n  listen: [\n"), env(nil))
	require.Error(t, err)
	assert.Regexp(t, `^line \d+: YAML syntax: `, err.Error())
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"listen", "adminListen", "timeouts", "poolSize"}
	for word, want := range map[string]string{"listn": "listen", "adminlisten": "adminListen", "timeout": "timeouts",
		"pool": "poolSize", "colour": "", "x": ""} {
		assert.Equal(t, want, Suggest(word, names), word)
	}
}

// FuzzDecode: any input decodes or is refused with problems; nothing panics
// and every problem has a message.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("versions: [v1]\nserver: {listen: ${X:-a:1}, timeouts: {read: 3}}\n"))
	f.Add([]byte("routes: [{path: /{version}/a, kind: x, versions: {v1: {serializeNulls: maybe}}}]\n"))
	f.Add([]byte("a: &x {b: 1}\nc: *x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data, env(map[string]string{"X": "1"}))
		if err != nil {
			return
		}
		for _, p := range Problems(file.Report(Validate(file.Config))) {
			if p == "" {
				t.Fatal("empty problem")
			}
		}
	})
}
