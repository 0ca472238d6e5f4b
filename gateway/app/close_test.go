package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// A reload builds a new gateway and closes the old one; the old one's JWKS
// refresh must stop then, or every reload would leave a goroutine behind.
func TestCloseStopsBackgroundWork(t *testing.T) {
	p := newIDP(t)
	cfg, err := config.Parse([]byte(baseConfig+"auth: {mode: jwt, jwt: {jwksURL: "+p.srv.URL+"}}\n"), func(string) string { return "" })
	require.NoError(t, err)
	table := tabled(t, cfg)
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{})
	require.NoError(t, err)
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{}, Duplicates: duplicates.New(time.Minute, 10),
		Upstreams: NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("none") })}
	// Keep-alive connections to the key server are not background work.
	ignore := []goleak.Option{goleak.IgnoreCurrent(), goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"), goleak.IgnoreAnyFunction("net/http.(*conn).serve")}
	for range 5 {
		gw, err := Build(context.Background(), cfg, table, sh)
		require.NoError(t, err)
		gw.Close()
	}
	require.Eventually(t, func() bool { return goleak.Find(ignore...) == nil }, 5*time.Second, 20*time.Millisecond,
		"every closed gateway's background work ended")
}
