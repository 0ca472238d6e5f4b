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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// Name is the upstream name this adapter puts in its errors.
const Name = "feed"

// Path is the feed resource under the configured base URL.
const Path = "/sfdc/public/feed"

// maxErrorBody bounds how much of an error answer is read, maxDrain how much
// of a success answer is drained so that the connection can be reused,
// maxErrorMessage the text kept in an error.
const (
	maxErrorBody    = 64 << 10
	maxDrain        = 64 << 10
	maxErrorMessage = 512
)

// Client posts to one feed. It is safe for concurrent use.
type Client struct {
	url  string
	doer upstreams.Doer
}

// New returns a client of the feed at baseURL (a trailing slash is ignored);
// doer is the shared upstream client in the gateway, a plain *http.Client in
// tests.
func New(baseURL string, doer upstreams.Doer) *Client {
	return &Client{url: strings.TrimRight(baseURL, "/") + Path, doer: doer}
}

// Post publishes one message under name. A POST is not idempotent, so the
// shared client does not retry it: a failure may still have been published.
func (c *Client) Post(ctx context.Context, name, message string) error {
	body, err := json.Marshal(struct {
		Name    string `json:"name"`
		Message string `json:"message"`
	}{name, message})
	if err != nil {
		return fmt.Errorf("feed: encoding message: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("feed: building request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.doer.Do(req)
	if err != nil {
		return transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	code, msg := errorOf(data)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return upstreams.NewStatusError(Name, resp.StatusCode, code, msg)
}

// errorOf reads the usual error shapes: the Salesforce array
// [{"errorCode", "message"}], an object with "message" (and "errorCode" or
// "error"), else the text itself.
func errorOf(body []byte) (code, msg string) {
	type sfError struct {
		ErrorCode string `json:"errorCode"`
		Message   string `json:"message"`
		Error     string `json:"error"`
	}
	body = bytes.TrimSpace(body)
	var list []sfError
	if json.Unmarshal(body, &list) == nil && len(list) > 0 {
		return list[0].ErrorCode, truncate(list[0].Message)
	}
	var one sfError
	if json.Unmarshal(body, &one) == nil {
		if one.Message != "" {
			return one.ErrorCode, truncate(one.Message)
		}
		if one.Error != "" {
			return one.ErrorCode, truncate(one.Error)
		}
	}
	return "", truncate(string(body))
}

func truncate(s string) string {
	if len(s) > maxErrorMessage {
		return s[:maxErrorMessage] + "..."
	}
	return s
}

// transportError keeps an *upstreams.Error from the shared client as it is
// and classifies anything else a plain *http.Client returns.
func transportError(ctx context.Context, err error) error {
	if upstreams.AsError(err) != nil {
		return err
	}
	kind := upstreams.KindFailed
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		kind = upstreams.KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		kind = upstreams.KindTimeout
	}
	return &upstreams.Error{Upstream: Name, Kind: kind, Err: err}
}
