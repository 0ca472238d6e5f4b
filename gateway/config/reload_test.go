package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// TestEverySectionSaysWhetherItReloads: each field of Config carries a
// reload tag, so that a new section cannot be listed as reloading by
// default.
func TestEverySectionSaysWhetherItReloads(t *testing.T) {
	t.Parallel()
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		mode := f.Tag.Get("reload")
		assert.Contains(t, []string{ReloadYes, ReloadRestart}, mode, "Config.%s needs reload:\"yes\" or reload:\"restart\"", f.Name)
	}
	for _, k := range Keys() {
		if m := k.Field.Tag.Get("reload"); m != "" {
			assert.Contains(t, []string{ReloadYes, ReloadRestart}, m, "%s: reload tag", k.Path)
		}
	}
}

func TestReloads(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"server.listen": false, "server.limits.maxURLLength": true, "server.limits.maxHeaderBytes": false,
		"log.level": false, "log.slowThreshold": true, "cluster.redis.url": false,
		"upstreams.accounts.timeout": true, "upstreams.<name>.retry.attempts": true, "routes[3].kind": true,
		"routes[].kind": true, "models.Account.versions.v1.mapKeys": true, "auth.jwt.secret": true, "no.such.key": false,
	} {
		assert.Equal(t, want, Reloads(path), path)
	}
}

func TestRestartChangesAndKeepRestart(t *testing.T) {
	t.Parallel()
	started := &Config{Versions: []string{"v1"}, Upstreams: map[string]upstreams.Settings{"a": {URL: "sandbox"}}}
	Defaults(started)
	next := &Config{Versions: []string{"v1", "v2"}, Upstreams: map[string]upstreams.Settings{"a": {URL: "http://a"}, "b": {URL: "sandbox"}}}
	next.Server.Listen = "127.0.0.1:9443"
	next.Server.Limits.MaxURLLength = 100
	next.Log.Level = "debug"
	next.Log.SlowThreshold = 5 * time.Second
	next.Log.RedactFields = []string{"pin"}
	next.Cluster.Redis.Timeout = 20 * time.Millisecond
	Defaults(next)

	assert.Equal(t, []string{"server.listen", "log.redactFields", "log.level", "cluster.redis.timeout"}, RestartChanges(started, next))

	KeepRestart(next, started)
	assert.Equal(t, "127.0.0.1:8443", next.Server.Listen, "a restart key keeps its start value")
	assert.Equal(t, "info", next.Log.Level)
	assert.Nil(t, next.Log.RedactFields)
	assert.Equal(t, 10*time.Millisecond, next.Cluster.Redis.Timeout)
	assert.Equal(t, 100, next.Server.Limits.MaxURLLength, "a reloading key inside a restart section reloads")
	assert.Equal(t, 5*time.Second, next.Log.SlowThreshold)
	assert.Equal(t, []string{"v1", "v2"}, next.Versions)
	assert.Equal(t, "http://a", next.Upstreams["a"].URL)
	require.Empty(t, RestartChanges(started, next), "nothing left that the reload cannot apply")
}

func TestKeysListsEveryKey(t *testing.T) {
	t.Parallel()
	paths := map[string]Key{}
	for _, k := range Keys() {
		paths[k.Path] = k
	}
	for _, p := range []string{"server", "server.tls.mode", "upstreams", "upstreams.<name>.retry.budget", "upstreams.<name>.auth.headers",
		"routes[].versions.<name>.serializeNulls", "models.<name>.versions.<name>.mapKeys", "log.collector.breaker.interval"} {
		assert.Contains(t, paths, p)
	}
	assert.True(t, paths["server.tls"].Section)
	assert.False(t, paths["server.tls.mode"].Section)
	assert.True(t, paths["upstreams"].Section)
}
