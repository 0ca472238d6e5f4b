package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClusterDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte("versions: [v1]\n"), env(nil))
	require.NoError(t, err)
	require.NoError(t, Validate(cfg))
	c := cfg.Cluster
	assert.Equal(t, StoreMemory, c.Store, "memory unless told otherwise")
	assert.False(t, c.FailClosed)
	assert.Equal(t, RedisSingle, c.Redis.Mode)
	assert.Equal(t, "restgate:", c.Redis.KeyPrefix)
	assert.Equal(t, 10*time.Millisecond, c.Redis.Timeout)
	assert.Equal(t, 10, c.Redis.FailureThreshold)
	assert.Equal(t, time.Second, c.Redis.RetryInterval)
}

func TestValidateCluster(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, yaml string
		wants      []string // empty: valid
	}{
		{desc: "memory ignores the redis block", yaml: "cluster: {store: memory, redis: {mode: nonsense}}"},
		{desc: "single", yaml: "cluster: {store: redis, redis: {url: 'redis://:pw@10.0.0.5:6379/2'}}"},
		{desc: "tls", yaml: "cluster: {store: redis, failClosed: true, redis: {url: 'rediss://user:pw@redis.example:6380'}}"},
		{desc: "sentinel", yaml: "cluster: {store: redis, redis: {url: 'redis://:pw@unused/0', mode: sentinel, addrs: 's1:26379, s2:26379', masterName: mymaster}}"},
		{desc: "cluster", yaml: "cluster: {store: redis, redis: {url: 'redis://:pw@', mode: cluster, addrs: 'n1:6379,n2:6379'}}"},
		{desc: "unknown store", yaml: "cluster: {store: etcd}", wants: []string{"cluster.store: must be memory or redis"}},
		{desc: "redis needs a URL", yaml: "cluster: {store: redis}", wants: []string{"cluster.redis.url: required"}},
		{desc: "not a redis URL, password not echoed", yaml: "cluster: {store: redis, redis: {url: 'http://:secretpw@h:1'}}",
			wants: []string{"cluster.redis.url: must be a redis:// or rediss:// URL"}},
		{desc: "single mode takes no addrs", yaml: "cluster: {store: redis, redis: {url: 'redis://h:1', addrs: 'a:1'}}",
			wants: []string{"cluster.redis.addrs: only for sentinel and cluster modes"}},
		{desc: "sentinel needs sentinels and a master", yaml: "cluster: {store: redis, redis: {url: 'redis://h:1', mode: sentinel}}",
			wants: []string{"cluster.redis.addrs: sentinel mode needs", "cluster.redis.masterName: required in sentinel mode"}},
		{desc: "bad address", yaml: "cluster: {store: redis, redis: {url: 'redis://h:1', mode: cluster, addrs: 'n1'}}",
			wants: []string{`cluster.redis.addrs: "n1" is not host:port`}},
		{desc: "unknown mode", yaml: "cluster: {store: redis, redis: {url: 'redis://h:1', mode: ring}}",
			wants: []string{"cluster.redis.mode: must be single, sentinel or cluster"}},
		{desc: "bounds", yaml: "cluster: {store: redis, redis: {url: 'redis://h:1', timeout: 10s, poolSize: -1, failureThreshold: -2, retryInterval: -1s, dialTimeout: -1s}}",
			wants: []string{"cluster.redis.timeout: must be between 0 and 5s", "cluster.redis.poolSize: poolSize and minIdleConns must not be negative",
				"cluster.redis.failureThreshold: must be at least 1", "cluster.redis.retryInterval: must be positive", "cluster.redis.dialTimeout: must be positive"}},
		{desc: "a CA file without TLS", yaml: "cluster: {store: redis, redis: {url: 'redis://h:1', tlsCAFile: /ca.pem}}",
			wants: []string{"cluster.redis.tlsCAFile: only with a rediss:// URL"}},
		{desc: "unknown key has its path", yaml: "cluster: {store: redis, redis: {url: 'redis://h:1', pool: 3}}",
			wants: []string{"cluster.redis.pool (line 2): unknown key; did you mean poolSize?"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			if err := assertExactProblems(t, "versions: [v1]\n"+tt.yaml, tt.wants); err != nil {
				assert.NotContains(t, err.Error(), "secretpw")
			}
		})
	}
}

func TestShippedConfigSharesStateThroughTheEnvironment(t *testing.T) {
	t.Parallel()
	cfg, err := Load(filepath.Join("..", "..", "config.yaml"), env(map[string]string{
		"GATEWAY_CLUSTER_STORE": "redis", "GATEWAY_REDIS_URL": "rediss://:pw@redis.internal:6380/1",
		"GATEWAY_CLUSTER_FAIL_CLOSED": "true"}))
	require.NoError(t, err)
	require.NoError(t, Validate(cfg))
	assert.Equal(t, StoreRedis, cfg.Cluster.Store)
	assert.True(t, cfg.Cluster.FailClosed)
	assert.Equal(t, "rediss://:pw@redis.internal:6380/1", cfg.Cluster.Redis.URL)
	assert.Equal(t, "restgate:", cfg.Cluster.Redis.KeyPrefix)
	assert.Empty(t, cfg.Cluster.Redis.RedisAddrs())

	cfg, err = Load(filepath.Join("..", "..", "config.yaml"), env(map[string]string{
		"GATEWAY_CLUSTER_STORE": "redis", "GATEWAY_REDIS_URL": "redis://:pw@", "GATEWAY_REDIS_MODE": "sentinel",
		"GATEWAY_REDIS_ADDRS": "s1:26379,s2:26379,s3:26379", "GATEWAY_REDIS_MASTER_NAME": "gw"}))
	require.NoError(t, err)
	require.NoError(t, Validate(cfg))
	assert.Equal(t, []string{"s1:26379", "s2:26379", "s3:26379"}, cfg.Cluster.Redis.RedisAddrs())
}
