package cluster

import (
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/restgate/gateway/gateway/config"
)

// newClient makes the go-redis client of r: the URL gives credentials,
// database and TLS (rediss), and in single mode the address; sentinel and
// cluster modes take their addresses from Addrs. Nothing is dialled here.
func newClient(r config.Redis) (redis.UniversalClient, error) {
	u, err := redis.ParseURL(r.URL)
	if err != nil {
		// go-redis's message may quote the URL, and the URL the password
		return nil, errors.New("url: not a valid redis:// or rediss:// URL")
	}
	o := &redis.UniversalOptions{
		Addrs: []string{u.Addr}, Username: u.Username, Password: u.Password, DB: u.DB, TLSConfig: u.TLSConfig,
		PoolSize: r.PoolSize, MinIdleConns: r.MinIdleConns,
		// A decision waits on Redis at most Timeout, whatever the stage:
		// the context carries the deadline and every socket wait follows
		// it. Connections are dialled in the background (bounded by
		// DialTimeout), so a slow handshake is never paid by one request.
		// No retries: the replica decides alone instead.
		ContextTimeoutEnabled: true,
		ReadTimeout:           r.Timeout, WriteTimeout: r.Timeout, PoolTimeout: r.Timeout,
		DialTimeout: r.DialTimeout, MaxRetries: -1,
		// the maintenance push notifications of Redis Enterprise: one
		// command less at each connection elsewhere
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
	if r.TLSCAFile != "" && o.TLSConfig != nil {
		pem, err := os.ReadFile(r.TLSCAFile)
		if err != nil {
			return nil, fmt.Errorf("tlsCAFile: %w", err)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tlsCAFile: %s holds no PEM certificate", r.TLSCAFile)
		}
		o.TLSConfig.RootCAs = roots
	}
	switch r.Mode {
	case config.RedisSingle:
		return redis.NewClient(o.Simple()), nil
	case config.RedisSentinel:
		o.Addrs, o.MasterName, o.SentinelPassword = r.RedisAddrs(), r.MasterName, r.SentinelPassword
		clearServerName(o)
		return redis.NewFailoverClient(o.Failover()), nil
	case config.RedisCluster:
		if o.DB != 0 {
			return nil, fmt.Errorf("url: Redis Cluster has only database 0, the URL selects %d", o.DB)
		}
		o.Addrs = r.RedisAddrs()
		clearServerName(o)
		return redis.NewClusterClient(o.Cluster()), nil
	}
	return nil, fmt.Errorf("mode: unknown %q", r.Mode)
}

// clearServerName leaves the TLS server name to each connection (the host
// of the node dialled): the URL's host is not one of them in sentinel and
// cluster modes.
func clearServerName(o *redis.UniversalOptions) {
	if o.TLSConfig != nil {
		o.TLSConfig = o.TLSConfig.Clone()
		o.TLSConfig.ServerName = ""
	}
}
