package middleware

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"

	"github.com/restgate/gateway/gateway/config"
)

// Compress returns the layer that compresses answers as cfg says
// (github.com/klauspost/compress/gzhttp): gzip, and zstd when cfg.Zstd,
// chosen by the request's Accept-Encoding; Vary: Accept-Encoding on every
// answer; answers under cfg.MinBytes, answers that already have a
// Content-Encoding and media types that are compressed already (images,
// archives, video) go as they are. With compression off it returns a layer
// that changes nothing.
func Compress(cfg config.Compression) (func(http.Handler) http.Handler, error) {
	if !cfg.Enabled {
		return func(h http.Handler) http.Handler { return h }, nil
	}
	wrap, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(cfg.Level), gzhttp.MinSize(cfg.MinBytes),
		gzhttp.EnableZstd(cfg.Zstd))
	if err != nil {
		return nil, err
	}
	return func(h http.Handler) http.Handler { return wrap(h) }, nil
}
