package redistest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NewSentinel starts a sentinel for t, monitoring the master at masterAddr
// under name (quorum 1), and stops it when t ends. Skipped or failed as New
// is when redis-server is missing.
func NewSentinel(t testing.TB, name, masterAddr string) *Server {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	host, port, _ := strings.Cut(masterAddr, ":")
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("sentinel monitor %s %s %s 1\nsentinel down-after-milliseconds %s 5000\n", name, host, port, name)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := start(dir, conf, nil, []string{"--sentinel"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// NewCluster starts a Redis Cluster of n masters (no replicas) for t, its
// slots spread by redis-cli, and waits until it serves; it stops them when
// t ends. Needs redis-cli (Debian's redis-tools, which redis-server
// depends on).
func NewCluster(t testing.TB, n int) []*Server {
	t.Helper()
	Require(t)
	nodes := make([]*Server, n)
	addrs := make([]string, n)
	for i := range nodes {
		nodes[i] = New(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000")
		addrs[i] = nodes[i].Addr
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append([]string{"--cluster", "create"}, addrs...)
	out, err := exec.CommandContext(ctx, "redis-cli", append(args, "--cluster-yes")...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		info, err := exec.CommandContext(ctx, "redis-cli", "-h", "127.0.0.1", "-p", portOf(addrs[0]), "cluster", "info").Output()
		if err == nil && strings.Contains(string(info), "cluster_state:ok") {
			return nodes
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster not ok within a minute: %v\n%s", err, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func portOf(addr string) string {
	_, port, _ := strings.Cut(addr, ":")
	return port
}
