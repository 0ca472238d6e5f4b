package reload_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/reload"
)

func TestWatcherAddsRoute(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 200)
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, configText(fake, "v0"))
	g := newGateway(t, path, fake)
	startWatcher(t, g)

	status, _ := g.get(t, "/v1/types/Thing")
	require.Equal(t, 404, status, "not served before the reload")
	writeFile(t, path, configText(fake, "v0", addedRoute))
	require.Eventually(t, func() bool { return g.status("/v1/types/Thing") == 200 }, 5*time.Second, 20*time.Millisecond,
		"the added route was never served")

	_, env := g.get(t, "/v2/types/Thing")
	assert.Equal(t, map[string]any{"Id": "id", "Display_Name__c": "displayName"}, env["mapKeys"], "the added route works")
	assert.Contains(t, g.listed(t), "/{version}/types/{objectName}")
	assert.Equal(t, int64(1), g.counter.ok.Load())
	assert.Equal(t, int64(0), g.counter.failed.Load())
}

func TestInvalidReloadKeepsOldConfig(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 200)
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, configText(fake, "v0"))
	g := newGateway(t, path, fake)
	before := g.listed(t)

	tests := []struct{ desc, text string }{
		{desc: "unknown key", text: configText(fake, "v0") + "colour: red\n"},
		{desc: "unknown kind", text: configText(fake, "v0", `  - {path: "/{version}/x", kind: teleport}`+"\n")},
		{desc: "duplicate route", text: configText(fake, "v0", `  - {path: "/{version}/settings/endpoints", kind: endpoints}`+"\n")},
		{desc: "not YAML", text: "routes: [\n"},
	}
	for i, tt := range tests {
		writeFile(t, path, tt.text)
		err := g.reloader.Reload(context.Background(), "test")
		assert.Error(t, err, tt.desc)
		assert.Equal(t, int64(i+1), g.counter.failed.Load(), tt.desc)
		assert.Equal(t, before, g.listed(t), "%s: the old routes keep serving", tt.desc)
	}
	assert.Equal(t, int64(0), g.counter.ok.Load())
}

func TestBreakerStateSurvivesReload(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 503)
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, configText(fake, "v0"))
	g := newGateway(t, path, fake)
	client := g.shared.Upstreams.Client("fake")
	require.NotNil(t, client)
	req, err := http.NewRequest("GET", fake, nil)
	require.NoError(t, err)
	_, err = client.Do(req)
	require.Error(t, err)
	require.Equal(t, "open", client.BreakerState(), "one failure trips this breaker")

	writeFile(t, path, configText(fake, "another summary", addedRoute))
	require.NoError(t, g.reloader.Reload(context.Background(), "test"))
	assert.Same(t, client, g.shared.Upstreams.Client("fake"), "unchanged settings keep the client")
	assert.Equal(t, "open", g.shared.Upstreams.Client("fake").BreakerState())

	writeFile(t, path, configText(fake+"/", "changed url"))
	require.NoError(t, g.reloader.Reload(context.Background(), "test"))
	assert.NotSame(t, client, g.shared.Upstreams.Client("fake"), "changed settings make a new client")
	assert.Equal(t, "closed", g.shared.Upstreams.Client("fake").BreakerState())
}

// TestReloadUnderLoad swaps the config 100 times while several clients send
// requests continuously: not one request may fail.
func TestReloadUnderLoad(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 200)
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, configText(fake, "v0"))
	g := newGateway(t, path, fake)

	stop := make(chan struct{})
	var sent, failed atomic.Int64
	var firstFailure atomic.Value
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{"/v1/settings/endpoints", "/v2/settings/model/Thing"}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := g.srv.Client().Get(g.srv.URL + paths[(n+i)%2])
				sent.Add(1)
				if err != nil || resp.StatusCode != 200 {
					failed.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprint(err, resp))
				}
				if resp != nil {
					resp.Body.Close()
				}
			}
		}()
	}
	for i := range 100 {
		extra := ""
		if i%2 == 1 {
			extra = addedRoute
		}
		writeFile(t, path, configText(fake, fmt.Sprintf("reload %d", i), extra))
		require.NoError(t, g.reloader.Reload(context.Background(), "test"))
	}
	close(stop)
	wg.Wait()
	assert.Equal(t, int64(100), g.counter.ok.Load())
	assert.Positive(t, sent.Load())
	assert.Zero(t, failed.Load(), "first failure: %v", firstFailure.Load())
	t.Logf("%d requests during 100 reloads", sent.Load())
}

// TestConfigMapSymlinkSwap lays the file out as a Kubernetes ConfigMap
// volume does and swaps the ..data link the way the kubelet does: a new
// timestamped directory, a temporary link, renamed over ..data.
func TestConfigMapSymlinkSwap(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 200)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "..2026_1", "config.yaml"), configText(fake, "v0"))
	require.NoError(t, os.Symlink("..2026_1", filepath.Join(dir, "..data")))
	require.NoError(t, os.Symlink(filepath.Join("..data", "config.yaml"), filepath.Join(dir, "config.yaml")))
	g := newGateway(t, filepath.Join(dir, "config.yaml"), fake)
	startWatcher(t, g)

	writeFile(t, filepath.Join(dir, "..2026_2", "config.yaml"), configText(fake, "v0", addedRoute))
	require.NoError(t, os.Symlink("..2026_2", filepath.Join(dir, "..data_tmp")))
	require.NoError(t, os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "..2026_1")))

	require.Eventually(t, func() bool { return g.status("/v1/types/Thing") == 200 }, 5*time.Second, 20*time.Millisecond,
		"the swap was never noticed")
	assert.Equal(t, int64(1), g.counter.ok.Load())
}

func TestWatcherSkipsNoOpAndDebounces(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, "a: 1\n")
	var calls atomic.Int64
	changed := make(chan struct{}, 10)
	w, err := reload.NewWatcher(path, 100*1e6, func() { calls.Add(1); changed <- struct{}{} }, discard())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	// The same bytes, a chmod and an unrelated file change nothing.
	writeFile(t, path, "a: 1\n")
	require.NoError(t, os.Chmod(path, 0o600))
	writeFile(t, filepath.Join(filepath.Dir(path), "other.yaml"), "b: 2\n")
	// A burst of writes is one change.
	for i := range 5 {
		writeFile(t, path, fmt.Sprintf("a: %d\n", i+2))
	}
	<-changed
	// An editor's save: write aside, rename over.
	writeFile(t, path+".swp", "a: 99\n")
	require.NoError(t, os.Rename(path+".swp", path))
	<-changed
	assert.Equal(t, int64(2), calls.Load())
}

func TestNewWatcherMissingDirectory(t *testing.T) {
	t.Parallel()
	_, err := reload.NewWatcher(filepath.Join(t.TempDir(), "missing", "config.yaml"), 0, func() {}, nil)
	assert.ErrorIs(t, err, reload.ErrNotWatched)
}

// TestOneChangeIsOneReload: a file write that both the watcher and a SIGHUP
// report, in either order, is one reload, counted once, for a file that
// applies and for one that is refused alike.
func TestOneChangeIsOneReload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc        string
		signalFirst bool
		valid       bool
	}{
		{desc: "watcher then SIGHUP, applied", valid: true},
		{desc: "SIGHUP then watcher, applied", signalFirst: true, valid: true},
		{desc: "watcher then SIGHUP, refused"},
		{desc: "SIGHUP then watcher, refused", signalFirst: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			fake := fakeBackend(t, 200)
			path := filepath.Join(t.TempDir(), "config.yaml")
			writeFile(t, path, configText(fake, "v0"))
			g := newGateway(t, path, fake)
			watched := startCountingWatcher(t, g)

			text := configText(fake, "v0", addedRoute)
			if !tt.valid {
				text += "colour: red\n"
			}
			writeFile(t, path, text)
			if tt.signalFirst {
				_ = g.reloader.Reload(context.Background(), "SIGHUP")
				<-watched
			} else {
				<-watched
				_ = g.reloader.Reload(context.Background(), "SIGHUP")
			}
			// SIGHUP again, with nothing changed: still nothing to do.
			_ = g.reloader.Reload(context.Background(), "SIGHUP")

			ok, failed := int64(0), int64(1)
			if tt.valid {
				ok, failed = 1, 0
			}
			assert.Equal(t, ok, g.counter.ok.Load(), "successes")
			assert.Equal(t, failed, g.counter.failed.Load(), "failures")
			assert.Equal(t, tt.valid, slices.Contains(g.listed(t), "/{version}/types/{objectName}"))
		})
	}
}

// TestSignalWithoutChangeReloadsNothing: the file the gateway started with,
// signalled, is not a reload.
func TestSignalWithoutChangeReloadsNothing(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 200)
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, configText(fake, "v0"))
	g := newGateway(t, path, fake)
	require.NoError(t, g.reloader.Reload(context.Background(), "SIGHUP"))
	assert.Zero(t, g.counter.ok.Load()+g.counter.failed.Load())

	// A file that reverts to what serves is loaded again: its content
	// differs from the last loaded (the refused one).
	writeFile(t, path, "routes: [\n")
	require.Error(t, g.reloader.Reload(context.Background(), "SIGHUP"))
	writeFile(t, path, configText(fake, "v0"))
	require.NoError(t, g.reloader.Reload(context.Background(), "SIGHUP"))
	assert.Equal(t, int64(1), g.counter.ok.Load())
	assert.Equal(t, int64(1), g.counter.failed.Load())
}
