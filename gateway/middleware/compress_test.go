package middleware

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

func TestCompress(t *testing.T) {
	t.Parallel()
	big := `{"result":"` + strings.Repeat("account ", 1000) + `"}`
	answer := func(body, contentType, encoding string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", contentType)
			if encoding != "" {
				w.Header().Set("Content-Encoding", encoding)
			}
			_, _ = io.WriteString(w, body)
		})
	}
	on := config.Compression{Enabled: true, Level: 1, MinBytes: 1400}
	tests := []struct {
		desc     string
		cfg      config.Compression
		h        http.Handler
		accept   string
		encoding string
	}{
		{desc: "gzip when accepted", cfg: on, h: answer(big, "application/json", ""), accept: "gzip", encoding: "gzip"},
		{desc: "zstd preferred when offered and accepted", cfg: config.Compression{Enabled: true, Level: 1, MinBytes: 1400, Zstd: true},
			h: answer(big, "application/json", ""), accept: "gzip, zstd", encoding: "zstd"},
		{desc: "no zstd unless offered", cfg: on, h: answer(big, "application/json", ""), accept: "zstd"},
		{desc: "nothing without Accept-Encoding", cfg: on, h: answer(big, "application/json", "")},
		{desc: "a tiny answer as it is", cfg: on, h: answer(`{"result":""}`, "application/json", ""), accept: "gzip"},
		{desc: "an answer already compressed as it is", cfg: on, h: answer(big, "application/json", "br"), accept: "gzip", encoding: "br"},
		{desc: "a compressed media type as it is", cfg: on, h: answer(big, "application/zip", ""), accept: "gzip"},
		{desc: "off", cfg: config.Compression{}, h: answer(big, "application/json", ""), accept: "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			layer, err := Compress(tt.cfg)
			require.NoError(t, err)
			req := httptest.NewRequest("GET", "/v2/accounts", nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Encoding", tt.accept)
			}
			rec := httptest.NewRecorder()
			layer(tt.h).ServeHTTP(rec, req)
			assert.Equal(t, tt.encoding, rec.Header().Get("Content-Encoding"))
			if tt.cfg.Enabled {
				assert.Contains(t, rec.Header().Values("Vary"), "Accept-Encoding")
			}
			body := rec.Body.Bytes()
			switch tt.encoding {
			case "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(body))
				require.NoError(t, err)
				body, err = io.ReadAll(zr)
				require.NoError(t, err)
			case "zstd":
				zr, err := zstd.NewReader(bytes.NewReader(body))
				require.NoError(t, err)
				defer zr.Close()
				body, err = io.ReadAll(zr)
				require.NoError(t, err)
			}
			if tt.encoding == "gzip" || tt.encoding == "zstd" {
				assert.Less(t, rec.Body.Len(), len(big)/5, "compressed several times")
				assert.Empty(t, rec.Header().Get("Content-Length"))
			}
			if tt.encoding != "br" {
				assert.Contains(t, []string{big, `{"result":""}`}, string(body))
			}
		})
	}
}
