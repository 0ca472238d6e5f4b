package console

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// budget is the most bytes the console's files may weigh, uncompressed:
// the page, its stylesheet, scripts and icon (docs/getting-started/console.md).
const budget = 64 << 10

func TestServesThePageAndItsAssets(t *testing.T) {
	t.Parallel()
	h := Handler()
	tests := []struct {
		path, contentType string
		status            int
	}{
		{"/", "text/html; charset=utf-8", 200},
		{"/ui/app.js", "text/javascript; charset=utf-8", 200},
		{"/ui/pages/routes.js", "text/javascript; charset=utf-8", 200},
		{"/ui/console.css", "text/css; charset=utf-8", 200},
		{"/ui/favicon.svg", "image/svg+xml", 200},
		{"/ui/", "", 404},
		{"/ui/pages/", "", 404},
		{"/ui/index.html", "", 404},
		{"/ui/nothing.js", "", 404},
		{"/ui/../console.go", "", 404},
		{"/favicon.ico", "", 404},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
		assert.Equal(t, tt.status, rec.Code, tt.path)
		if tt.contentType != "" {
			assert.Equal(t, tt.contentType, rec.Header().Get("Content-Type"), tt.path)
			assert.Equal(t, "no-cache", rec.Header().Get("Cache-Control"), tt.path)
		}
	}
}

// Every value is rendered as text: no script of the console writes
// markup, evaluates strings or loads anything from elsewhere.
func TestScriptsRenderTextOnlyAndFetchNothingElsewhere(t *testing.T) {
	t.Parallel()
	markup := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\('style'|\.srcdoc|javascript:`)
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<style|\sstyle=|\son[a-z]+=`)
	total := 0
	err := fs.WalkDir(Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Files(), path)
		require.NoError(t, err)
		total += len(b)
		s := string(b)
		if strings.HasSuffix(path, ".js") {
			assert.NotRegexp(t, markup, s, path)
		}
		for _, m := range external.FindAllString(s, -1) {
			assert.Equal(t, "http://www.w3.org", m, "%s names another host: %s", path, m)
		}
		if strings.HasSuffix(path, ".html") {
			assert.NotRegexp(t, inline, s, "%s: no inline script, style or handler (the CSP forbids them)", path)
		}
		return nil
	})
	require.NoError(t, err)
	assert.LessOrEqual(t, total, budget, "the console's files fit their budget")
	t.Logf("console files: %d bytes of a %d budget", total, budget)
}
