package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// The console's browser tests drive Debian's chromium (never a downloaded
// browser) through the DevTools protocol, and scan pages with axe-core
// from npm, pinned (.ci/console.sh installs both). Without them the tests
// skip, saying what to install, and fail instead when CI=true.

// axeVersion is the axe-core the accessibility scan injects.
const axeVersion = "4.14.1"

// chromiumPath is the browser: $CHROMIUM, else chromium on the PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing(t, "chromium is not installed: apt-get install chromium (or set CHROMIUM to its path)")
	return ""
}

// axeSource is axe.min.js: $AXE_CORE_JS, else where .ci/console.sh puts it.
func axeSource(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AXE_CORE_JS")
	if path == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		path = filepath.Join(cache, "restgate", "axe-core-"+axeVersion, "node_modules", "axe-core", "axe.min.js")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		missing(t, fmt.Sprintf("axe-core %s is not at %s: run .ci/console.sh, or npm install --prefix <dir> axe-core@%s and set AXE_CORE_JS",
			axeVersion, path, axeVersion))
	}
	return string(b)
}

// missing skips t for want of a program, or fails it under CI=true.
func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(what)
	}
	t.Skip(what)
}

// browser is one headless chromium with one tab, and what the tab saw go
// wrong: console errors, uncaught exceptions, failed requests.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	problems []string
	// allowed are statuses not counted as failed requests (the sign-in
	// test's 401s).
	allowed map[int]bool
}

func newBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	// a directory of its own, removed once the browser is gone (a test's
	// TempDir could be removed while chromium still writes to it)
	profile, err := os.MkdirTemp("", "console-chromium-")
	require.NoError(t, err)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(profile),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-background-networking", true),
		chromedp.WindowSize(width, height))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		_ = os.RemoveAll(profile)
	})
	b := &browser{ctx: ctx, allowed: map[int]bool{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problem("exception: " + ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning {
				b.problem(fmt.Sprintf("console.%s: %s", ev.Type, args(ev.Args)))
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.LevelError || ev.Entry.Level == log.LevelWarning {
				b.problem(fmt.Sprintf("log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventLoadingFailed:
			b.problem(fmt.Sprintf("request failed: %s %s", ev.ErrorText, ev.BlockedReason))
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 && !b.isAllowed(int(ev.Response.Status)) {
				b.problem(fmt.Sprintf("request answered %d: %s", ev.Response.Status, ev.Response.URL))
			}
		}
	})
	// Every alert a hostile value could make is counted, as is every
	// Content-Security-Policy violation: neither may happen.
	hook := `window.__alerts = 0; window.alert = window.confirm = window.prompt = () => { window.__alerts++; };
window.__csp = []; document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`
	require.NoError(t, chromedp.Run(ctx, network.Enable(), log.Enable(), chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(hook).Do(ctx)
		return err
	})))
	return b
}

func args(list []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range list {
		if a.Value != nil {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

func (b *browser) problem(p string) {
	b.mu.Lock()
	b.problems = append(b.problems, p)
	b.mu.Unlock()
}

func (b *browser) isAllowed(status int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.allowed[status]
}

func (b *browser) allow(status int) {
	b.mu.Lock()
	b.allowed[status] = true
	b.mu.Unlock()
}

// seen is every problem so far.
func (b *browser) seen() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// run runs actions with a bound, failing t on an error.
func (b *browser) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Run(ctx, actions...), what)
}

// until polls the page's expression until it is true.
func (b *browser) until(t *testing.T, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	err := chromedp.Run(ctx, chromedp.Poll(expr, nil, chromedp.WithPollingInterval(100*time.Millisecond)))
	if errors.Is(err, context.DeadlineExceeded) {
		var text string
		_ = chromedp.Run(b.ctx, chromedp.Text("main", &text, chromedp.ByQuery))
		t.Fatalf("%s: not seen in 30s; the page shows:\n%s", what, text)
	}
	require.NoError(t, err, what)
}

// eval evaluates expr (awaiting a promise) into out.
func (b *browser) eval(t *testing.T, expr string, out any) {
	t.Helper()
	b.run(t, expr, chromedp.Evaluate(expr, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
}

// screenshot writes the tab as a PNG to path: the whole page, or with
// viewport only what the screen shows.
func (b *browser) screenshot(t *testing.T, path string, viewport bool) {
	t.Helper()
	var png []byte
	shot := chromedp.FullScreenshot(&png, 100)
	if viewport {
		shot = chromedp.CaptureScreenshot(&png)
	}
	b.run(t, "screenshot", shot)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, png, 0o644))
}

// CI installs the axe-core the tests look for.
func TestCIInstallsThePinnedAxe(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join("..", "..", ".ci", "console.sh"))
	require.NoError(t, err)
	require.Contains(t, string(script), "AXE_VERSION="+axeVersion+"\n")
}
