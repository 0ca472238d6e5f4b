package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Enabled reports whether the policy allows any origin.
func (c *CORS) Enabled() bool { return c != nil && len(c.AllowedOrigins) > 0 }

// Headers returns AllowedHeaders, or their default when none are set.
func (c *CORS) Headers() []string {
	if len(c.AllowedHeaders) > 0 {
		return c.AllowedHeaders
	}
	return []string{"Authorization", "Content-Type", "X-API-Key", "traceparent", "tracestate"}
}

// Exposed returns ExposedHeaders, or their default when none are set.
func (c *CORS) Exposed() []string {
	if len(c.ExposedHeaders) > 0 {
		return c.ExposedHeaders
	}
	return []string{"Server-Timing", "Retry-After", "Allow", "WWW-Authenticate"}
}

// corsMethods are the methods a CORS policy may name.
func corsMethods() []string { return []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} }

func validateCORS(p *problems, path string, c *CORS) {
	for i, o := range c.AllowedOrigins {
		key := fmt.Sprintf("%s.allowedOrigins[%d]", path, i)
		if o == "*" {
			if c.AllowCredentials {
				p.add(key, `"*" cannot be combined with allowCredentials (browsers refuse it); list the origins`)
			}
			continue
		}
		if strings.Count(o, "*") > 1 {
			p.add(key, "at most one * wildcard, not %q", o)
			continue
		}
		u, err := url.Parse(strings.Replace(o, "*", "wildcard", 1))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
			p.add(key, "must be an origin such as https://app.example.com, not %q", o)
		}
	}
	for i, m := range c.AllowedMethods {
		if !slices.Contains(corsMethods(), m) {
			p.add(fmt.Sprintf("%s.allowedMethods[%d]", path, i), "must be one of %s, not %q", strings.Join(corsMethods(), ", "), m)
		}
	}
	for i, h := range c.AllowedHeaders {
		if h == "" || strings.ContainsAny(h, " \t,:") {
			p.add(fmt.Sprintf("%s.allowedHeaders[%d]", path, i), "must be a header name, not %q", h)
		}
	}
	for i, h := range c.ExposedHeaders {
		if h == "" || h == "*" || strings.ContainsAny(h, " \t,:") {
			p.add(fmt.Sprintf("%s.exposedHeaders[%d]", path, i), "must be a header name, not %q", h)
		}
	}
	if c.MaxAge < 0 || c.MaxAge > 24*time.Hour {
		p.add(path+".maxAge", "must be from 0 to 24h")
	}
}

func validateCompression(p *problems, c *Compression) {
	if c.Level < 1 || c.Level > 9 {
		p.add("server.compression.level", "must be from 1 to 9")
	}
	if c.MinBytes < 0 {
		p.add("server.compression.minBytes", "must not be negative")
	}
}
