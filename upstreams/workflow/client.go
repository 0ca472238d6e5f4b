// Package workflow is the adapter of the workflow engine (UPSTREAMS.md B2):
// a Flowable (or Activiti) REST service reached over HTTP Basic. It turns the
// gateway's task vocabulary (status open|closed, candidate, ...) into the
// engine's real parameters, pages every list with the engine's start and
// size and reads its list envelope (List), sends every variable with a
// type the engine's version converts (restvar; the version read from GET
// /management/engine, or pinned), turns a claim's lost race into the 409
// it is, and reads
// both of the engine's error body shapes into *upstreams.Error, a 403
// the engine's own refusal (BusinessRefusal) kept apart from a refusal of
// the gateway's credentials.
//
// Credentials are not the adapter's business: the Doer it is given (the
// shared upstreams client) adds the configured Basic header.
package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/jsonspan"
)

// Upstream is the upstream name this adapter reports in its errors.
const Upstream = "workflow"

// maxBody bounds how much of an answer is read; a task list of 1000 items
// with variables is far below it, so more means a misbehaving backend.
const maxBody = 16 << 20

// Client calls one workflow engine. It is safe for concurrent use; the
// routes of one upstream share one Client, which keeps what it knows of
// the engine's version.
//
// The variable types an engine converts depend on its version
// (restvar.Converters). Unless opts pins it, the version is read from GET
// /management/engine by the first call that sends a variable whose typing
// depends on it (Converters; the gateway also asks at start), and read
// again by the next such call after the engine was lost (no answer, the
// breaker open, a proxy's 502/503/504 for it), after the engine refused a
// type its version was believed to convert, and ten minutes after the last
// read.
type Client struct {
	base   string
	doer   upstreams.Doer
	engine *engine
}

// New returns a Client for the engine's REST service base, for example
// http://host:8080/flowable-rest/service (a trailing slash is ignored).
// Every call goes through doer, which is expected to add the Basic
// credentials, breaker, timeouts and retries.
func New(baseURL string, doer upstreams.Doer, opts Options) *Client {
	return &Client{base: strings.TrimRight(baseURL, "/"), doer: doer, engine: newEngine(opts)}
}

// call sends one request and returns the body of a 2xx answer; every other
// outcome is an *upstreams.Error. judge, when not nil, reads the answer
// before the call ends: a KindInvalid error from it ends the call as
// invalid (upstreams.Reject), any error is returned.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body any, judge func([]byte) error) ([]byte, error) {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encoding %s %s body: %w", method, path, err)
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, fmt.Errorf("building %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.doer.Do(req)
	if err != nil {
		return nil, c.lostOn(upstreams.TransportError(ctx, Upstream, err))
	}
	defer resp.Body.Close()
	raw, err := upstreams.ReadAnswer(resp, maxBody)
	if err != nil {
		return nil, c.lostOn(upstreams.TransportError(ctx, Upstream, err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, c.lostOn(statusError(resp, path, raw))
	}
	if len(raw) > maxBody {
		return nil, upstreams.Reject(resp, invalid(fmt.Errorf("answer to %s %s exceeds %d bytes", method, path, maxBody)))
	}
	if judge != nil {
		if err := judge(raw); err != nil {
			return nil, upstreams.Reject(resp, err)
		}
	}
	return raw, nil
}

// object sends one request whose answer must be a JSON object, and returns
// that object.
func (c *Client) object(ctx context.Context, method, path string, body any) ([]byte, error) {
	raw, err := c.call(ctx, method, path, nil, body, func(raw []byte) error {
		if !isObject(raw) {
			return invalid(fmt.Errorf("%s %s: answer is not a JSON object", method, path))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// List is one page of an engine list: the items of its data array and
// where they sit in the whole list.
type List struct {
	// Data is the engine's data array as it came.
	Data []byte
	// Start is the position of Data's first item in the whole list.
	Start int
	// Size is the number of items in Data.
	Size int
	// Total is the number of items in the whole list, as the engine counts
	// them.
	Total int64
}

// getList GETs path and reads the engine's list envelope
// {"data": [...], "total", "start", "sort", "order", "size"}.
func (c *Client) getList(ctx context.Context, path string, query url.Values) (List, error) {
	var l List
	_, err := c.call(ctx, http.MethodGet, path, query, nil, func(body []byte) (err error) {
		l, err = readList(path, body)
		return err
	})
	return l, err
}

// readList reads the engine's list envelope of the answer to GET path.
func readList(path string, body []byte) (List, error) {
	var envelope struct {
		Data  json.RawMessage `json:"data"`
		Total *int64          `json:"total"`
		Start int             `json:"start"`
		Size  int             `json:"size"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil {
		return List{}, invalid(fmt.Errorf("GET %s: %w", path, err))
	}
	data := bytes.TrimSpace(envelope.Data)
	n, ok := jsonspan.Count(data) // the items are the caller's to read; json.Unmarshal checked their syntax
	if !ok {
		return List{}, invalid(fmt.Errorf("GET %s: answer has no data array", path))
	}
	l := List{Data: data, Start: envelope.Start, Size: n, Total: -1}
	if envelope.Total != nil {
		l.Total = *envelope.Total
	}
	// A start past the end answers no items and the whole list's total.
	if envelope.Size != l.Size || l.Size > 0 && l.Total >= 0 && l.Total < int64(l.Start+l.Size) {
		return List{}, invalid(fmt.Errorf("GET %s: the list envelope does not add up (start %d, size %d, total %d, %d items)",
			path, envelope.Start, envelope.Size, l.Total, n))
	}
	return l, nil
}

func isObject(body []byte) bool {
	body = bytes.TrimSpace(body)
	return len(body) > 0 && body[0] == '{' && json.Valid(body)
}

func invalid(err error) *upstreams.Error {
	return &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindInvalid, Err: err}
}

// transportError keeps an *upstreams.Error from the shared client as it is
// and classifies the bare errors of a plain *http.Client.
