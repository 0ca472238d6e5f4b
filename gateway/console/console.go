// Package console is the operator's console: one page (GET / on the admin
// listener) and its scripts, styles and icon under /ui/, embedded in the
// binary. It is plain HTML, CSS and JavaScript modules with no build step
// and nothing fetched from anywhere but the admin listener itself; every
// figure it shows comes from the admin API (gateway/adminapi), which it
// polls every few seconds. Values are rendered as text nodes, never as
// markup.
//
// The page and its assets hold no data, so they are served to anyone who
// reaches the listener; the API behind them is what adminguard protects.
package console

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed ui
var files embed.FS

// Files are the console's files, under ui/: index.html and what it loads.
func Files() fs.FS { return files }

// Handler serves the page at / and the assets under /ui/ (no listing of
// directories); mount it for "GET /{$}" and "GET /ui/".
func Handler() http.Handler {
	index, _ := files.ReadFile("ui/index.html")
	assets := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(index)
		case strings.HasPrefix(r.URL.Path, "/ui/") && !strings.HasSuffix(r.URL.Path, "/") && r.URL.Path != "/ui/index.html":
			assets.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}
