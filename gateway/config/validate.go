package config

import (
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/h1wire"
)

// versionPattern is the form of a served version: v plus a number.
var versionPattern = regexp.MustCompile(`^v[0-9]+$`)

// Validate checks c without changing it and reports every problem, each
// prefixed with its key path, joined in one error (nil when valid). Route
// and key-map checks that need the built route table are done by the route
// table's builder, which reports in the same form.
func Validate(c *Config) error {
	var p problems
	validateServer(&p, &c.Server)
	if len(c.Versions) == 0 {
		p.add("versions", "at least one version must be served")
	}
	for i, v := range c.Versions {
		if !versionPattern.MatchString(v) {
			p.add(fmt.Sprintf("versions[%d]", i), "%q is not v followed by a number", v)
		}
		if slices.Index(c.Versions, v) != i {
			p.add(fmt.Sprintf("versions[%d]", i), "%q is listed twice", v)
		}
	}
	validateAuth(&p, &c.Auth, c.Server.Listen)
	validateQuotas(&p, c)
	switch c.Errors.StatusMode {
	case StatusHTTP, StatusAlways200:
	default:
		p.add("errors.statusMode", "must be %s or %s, not %q", StatusHTTP, StatusAlways200, c.Errors.StatusMode)
	}
	if c.Mapping.MaxOutputChars < 0 {
		p.add("mapping.maxOutputChars", "must not be negative")
	}
	if c.Mapping.MaxDepth < 1 {
		p.add("mapping.maxDepth", "must be at least 1")
	}
	for i := range c.Routes {
		if c.Routes[i].CORS != nil {
			validateCORS(&p, fmt.Sprintf("routes[%d].cors", i), c.Routes[i].CORS)
		}
	}
	validateLog(&p, &c.Log)
	validateTracing(&p, &c.Tracing)
	validateCluster(&p, &c.Cluster)
	validateCache(&p, c)
	validateConsole(&p, &c.Console)
	for name, s := range c.Upstreams {
		p.errs = append(p.errs, s.Validate("upstreams."+name)...)
	}
	return p.err()
}

func validateServer(p *problems, s *Server) {
	checkAddr(p, "server.listen", s.Listen)
	checkAddr(p, "server.adminListen", s.AdminListen)
	switch s.TLS.Mode {
	case TLSAuto, TLSOff:
	case TLSFiles:
		if s.TLS.CertFile == "" {
			p.add("server.tls.certFile", "required when mode is files")
		}
		if s.TLS.KeyFile == "" {
			p.add("server.tls.keyFile", "required when mode is files")
		}
	default:
		p.add("server.tls.mode", "must be auto, off or files, not %q", s.TLS.Mode)
	}
	if s.PublicURL != "" {
		if u, err := url.Parse(s.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.add("server.publicURL", "must be an absolute http or https URL, not %q", s.PublicURL)
		}
	}
	validateContact(p, "server.contact", &s.Contact)
	validateCORS(p, "server.cors", &s.CORS)
	validateCompression(p, &s.Compression)
	switch s.HTTP1 {
	case HTTP1Fast, HTTP1Std:
	default:
		p.add("server.http1", "must be %s or %s, not %q", HTTP1Fast, HTTP1Std, s.HTTP1)
	}
	t := s.Timeouts
	for key, d := range map[string]int64{"readHeader": int64(t.ReadHeader), "read": int64(t.Read),
		"write": int64(t.Write), "idle": int64(t.Idle), "shutdown": int64(t.Shutdown)} {
		if d <= 0 {
			p.add("server.timeouts."+key, "must be positive")
		}
	}
	if s.Limits.MaxBodyBytes <= 0 {
		p.add("server.limits.maxBodyBytes", "must be positive")
	}
	if s.Limits.MaxHeaderBytes < 1024 {
		p.add("server.limits.maxHeaderBytes", "must be at least 1024")
	}
	if s.Limits.MaxURLLength < 64 {
		p.add("server.limits.maxURLLength", "must be at least 64")
	}
	if s.Limits.MaxJSONDepth < 1 {
		p.add("server.limits.maxJSONDepth", "must be at least 1")
	}
	if s.Limits.MaxConnections < 1 {
		p.add("server.limits.maxConnections", "must be at least 1")
	}
	if s.Limits.MaxAdminConnections < 1 {
		p.add("server.limits.maxAdminConnections", "must be at least 1")
	}
	if s.Limits.MaxSpoolBytes < 1 {
		p.add("server.limits.maxSpoolBytes", "must be positive")
	}
}

func validateAuth(p *problems, a *Auth, listen string) {
	switch a.Mode {
	case AuthNone:
		if !IsLoopback(listen) {
			p.add("auth.mode", "none is allowed only on a loopback listener, and server.listen is %q", listen)
		}
	case AuthJWT:
		if a.JWT.Secret == "" && a.JWT.JWKSURL == "" {
			p.add("auth.jwt", "jwt mode needs a secret (GATEWAY_JWT_SECRET) or a jwksURL (GATEWAY_JWKS_URL)")
		}
		if a.JWT.Secret != "" && len(a.JWT.Secret) < 32 {
			p.add("auth.jwt.secret", "must be at least 32 bytes for HS256")
		}
		if a.JWT.JWKSURL != "" {
			checkURL(p, "auth.jwt.jwksURL", a.JWT.JWKSURL)
			// whoever can change the key set can sign any token
			if u, err := url.Parse(a.JWT.JWKSURL); err == nil && u.Scheme == "http" && !IsLoopback(net.JoinHostPort(u.Hostname(), "0")) {
				p.add("auth.jwt.jwksURL", "must be https unless the host is loopback: keys fetched over plain HTTP can be replaced on the way")
			}
		}
	case AuthAPIKey:
		if len(a.APIKeys) == 0 {
			p.add("auth.apiKeys", "apikey mode needs at least one key")
		}
	default:
		p.add("auth.mode", "must be none, jwt or apikey, not %q", a.Mode)
	}
	for i, k := range a.APIKeys {
		path := fmt.Sprintf("auth.apiKeys[%d]", i)
		if len(k.SHA256) != 64 || strings.Trim(strings.ToLower(k.SHA256), "0123456789abcdef") != "" {
			p.add(path+".sha256", "must be the 64 hex digits of the key's SHA-256, never the key")
		}
		if k.UserID == "" {
			p.add(path+".userId", "required")
		}
	}
	if a.JWT.Leeway < 0 || a.JWT.Leeway > 5*time.Minute {
		p.add("auth.jwt.leeway", "must be between 0 and 5m")
	}
	if a.JWT.JWKSRefresh < 10*time.Second || a.JWT.JWKSRefresh > 24*time.Hour {
		p.add("auth.jwt.jwksRefresh", "must be between 10s and 24h")
	}
	if a.JWT.VerifiedTokens < 1 || a.JWT.VerifiedTokens > 1_000_000 {
		p.add("auth.jwt.verifiedTokens", "must be between 1 and 1000000")
	}
	if r := a.RateLimit; r.RequestsPerSecond < 0 || (r.RequestsPerSecond > 0 && r.Burst < 1) {
		p.add("auth.rateLimit", "requestsPerSecond must not be negative, and burst at least 1 when it is set")
	}
}

func validateLog(p *problems, l *Log) {
	if l.CollectorURL != "" {
		checkURL(p, "log.collectorURL", l.CollectorURL)
	}
	if l.MaxRetries >= upstreams.MaxRetryAttempts {
		p.add("log.maxRetries", "must be at most %d", upstreams.MaxRetryAttempts-1)
	}
	c := l.Collector
	for _, f := range []struct {
		set          bool
		key, instead string
	}{
		{c.URL != "", "url", "log.collectorURL"},
		{c.Timeout != 0, "timeout", "log.timeout"},
		{c.Retry.Attempts != 0, "retry.attempts", "log.maxRetries"},
	} {
		if f.set {
			p.add("log.collector."+f.key, "is set by %s", f.instead)
		}
	}
	if len(c.Options) > 0 {
		p.add("log.collector.options", "the collector's client takes no options")
	}
	if c.Allowance.Configured() {
		p.add("log.collector.allowance", "the collector is no org with an API allowance")
	}
	// log.collectorURL is checked above, as the whole URL batches go to.
	c.URL = upstreams.SandboxURL
	p.errs = append(p.errs, c.Validate("log.collector")...)
	validateLogSink(p, l)
	if l.QueueSize < 1 || l.BatchSize < 1 || l.BatchSize > l.QueueSize {
		p.add("log.batchSize", "queueSize and batchSize must be positive and batchSize at most queueSize")
	}
	switch l.Level {
	case "debug", "info", "warn", "error":
	default:
		p.add("log.level", "must be debug, info, warn or error, not %q", l.Level)
	}
	switch l.Local {
	case LocalAuto, LocalStdout, LocalOff:
	default:
		p.add("log.local", "must be %s, %s or %s, not %q", LocalAuto, LocalStdout, LocalOff, l.Local)
	}
	switch l.LocalFormat {
	case LocalAuto, FormatText, FormatJSON:
	default:
		p.add("log.localFormat", "must be %s, %s or %s, not %q", LocalAuto, FormatText, FormatJSON, l.LocalFormat)
	}
}

// validateLogSink checks the call log's sink, format, batches, headers,
// compression and queue.
func validateLogSink(p *problems, l *Log) {
	formats := map[string][]string{"http": {"text", "jsonl", "json"}, "loki": {"text", "jsonl"},
		"otlp": {"text", "jsonl"}, "elasticsearch": {"text", "jsonl"}}
	if allowed, ok := formats[l.Sink]; !ok {
		p.add("log.sink", "must be http, loki, elasticsearch or otlp, not %q", l.Sink)
	} else if !slices.Contains(allowed, l.Format) {
		p.add("log.format", "must be one of %s with sink %s, not %q", strings.Join(allowed, ", "), l.Sink, l.Format)
	}
	if l.MaxBatchSize < l.BatchSize || l.MaxBatchBytes < 1 {
		p.add("log.maxBatchSize", "maxBatchSize must be at least batchSize, and maxBatchBytes positive")
	}
	if l.Senders < 1 || l.Senders > 64 {
		p.add("log.senders", "must be between 1 and 64")
	} else if mc := l.Collector.MaxConcurrent; mc > 0 && mc < l.Senders {
		p.add("log.senders", "must be at most log.collector.maxConcurrent (%d)", mc)
	}
	if l.Compress != "none" && l.Compress != "gzip" {
		p.add("log.compress", "must be none or gzip, not %q", l.Compress)
	}
	for name, value := range l.Headers {
		canon := textproto.CanonicalMIMEHeaderKey(name)
		switch {
		case !h1wire.ValidToken(name):
			p.add("log.headers."+name, "is not a header name")
			continue
		case !h1wire.ValidValue(value):
			p.add("log.headers."+name, "holds a character a header value may not")
		case calllog.ReservedHeader(canon):
			p.add("log.headers."+name, "is set by the call log")
		}
		for other := range l.Collector.Auth.Headers {
			if textproto.CanonicalMIMEHeaderKey(other) == canon {
				p.add("log.headers."+name, "is also set in log.collector.auth.headers")
			}
		}
	}
	switch l.Queue {
	case "memory", "disk":
	default:
		p.add("log.queue", "must be memory or disk, not %q", l.Queue)
	}
	if l.Disk.MaxBytes < 1<<20 {
		p.add("log.disk.maxBytes", "must be at least 1048576 (1 MiB)")
	}
	switch l.Disk.Fsync {
	case "always", "interval", "never":
	default:
		p.add("log.disk.fsync", "must be always, interval or never, not %q", l.Disk.Fsync)
	}
	if l.Disk.FsyncInterval < 0 || l.ShutdownFlush < 0 {
		p.add("log.disk.fsyncInterval", "durations must not be negative (log.shutdownFlush too)")
	}
	for name := range l.Loki.Labels {
		if !calllog.ValidLokiLabel(name) {
			p.add("log.loki.labels."+name, "must match [a-zA-Z_][a-zA-Z0-9_]* and not be route or status (the gateway sets them)")
		}
	}
	if l.Elasticsearch.Index == "" || strings.ContainsAny(l.Elasticsearch.Index, ` "*\/,|<>?#`) {
		p.add("log.elasticsearch.index", "must be an index name without spaces, quotes or any of *\\/,|<>?#")
	}
}

// IsLoopback reports whether a listen address binds only loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func checkAddr(p *problems, path, addr string) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		p.add(path, "%q is not host:port", addr)
	}
}

func checkURL(p *problems, path, raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add(path, "must be an absolute http(s) URL")
	}
}

// problems collects validation errors with their key paths.
type problems struct{ errs []error }

func (p *problems) add(path, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
}

func (p *problems) err() error { return errors.Join(p.errs...) }
