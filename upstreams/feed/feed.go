// Package feed is the adapter of the public feed (UPSTREAMS.md B5): one
// POST of {name, message} to {feed_url}/sfdc/public/feed.
//
// The feed's answer is not specified, so any 2xx is success whatever its
// body (JSON, text or none); the body is never parsed. Every failure is an
// *upstreams.Error with Upstream "feed".
package feed

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
)

// Name is the upstream name this adapter puts in its errors.
const Name = "feed"

// path is the feed resource under the configured base URL.
const path = "/sfdc/public/feed"

// maxDrain bounds how much of a success answer is drained so that the
// connection can be reused.
const maxDrain = 64 << 10

// Client posts to one feed. It is safe for concurrent use.
type Client struct {
	url  string
	doer upstreams.Doer
}

// New returns a client of the feed at baseURL (a trailing slash is ignored);
// doer is the shared upstream client in the gateway, a plain *http.Client in
// tests.
func New(baseURL string, doer upstreams.Doer) *Client {
	return &Client{url: strings.TrimRight(baseURL, "/") + path, doer: doer}
}

// Post publishes one message under name. A POST is not idempotent, so the
// shared client does not retry it: a failure may still have been published.
func (c *Client) Post(ctx context.Context, name, message string) error {
	body := make([]byte, 0, len(`{"name":"","message":""}`)+len(name)+len(message))
	body = mapping.AppendString(append(body, `{"name":`...), name)
	body = mapping.AppendString(append(body, `,"message":`...), message)
	body = append(body, '}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return &upstreams.Error{Upstream: Name, Kind: upstreams.KindFailed, Err: err}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.doer.Do(req)
	if err != nil {
		return upstreams.TransportError(ctx, Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return upstreams.ReadStatusError(Name, resp)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	return nil
}
