// Package accounts is the adapter of the account controller (UPSTREAMS.md
// B1), a Spring MVC service under /api/v1/account.
//
// Records travel as raw JSON bytes with the backend's own field names (Id,
// Name, BillingCity, Total_Assets__c, ...): the gateway renames them in a
// streaming pass, so decoding them here would only cost time. Every failure
// is an *upstreams.Error with Upstream "accounts".
package accounts

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// Name is the upstream name this adapter puts in its errors.
const Name = "accounts"

// maxBody bounds how much of one answer the adapter reads; a larger answer
// is KindInvalid rather than an unbounded allocation.
const maxBody = 32 << 20

// Client calls one account controller. Safe for concurrent use.
type Client struct {
	base    string
	doer    upstreams.ContextDoer
	opts    Options
	answers upstreams.Answers
	// jsonType is the value of Accept and Content-Type, shared by every
	// request rather than allocated by Header.Set for each: nothing that
	// sends a request modifies its header values.
	jsonType []string
	// whole is GET of the base URL (the whole list, and every list the
	// adapter pages), built once: each call sends it under its context
	// (DoContext: the shared client copies no request for it), instead of
	// parsing the URL and building a header map again. Its URL and header are shared and
	// never modified: the shared client sends a header map of its own. Nil
	// when the base URL does not parse (each call then reports it).
	whole *http.Request
}

// New returns a client of the account controller at baseURL, the service
// base such as "http://host:8080" (a trailing slash is ignored); the client
// appends /api/v1/account/... itself. doer is the shared upstream client in
// the gateway, a plain *http.Client in tests. opts say how the backend
// pages and updates (zero fields: their defaults).
func New(baseURL string, doer upstreams.Doer, opts Options) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/") + "/api/v1/account/", doer: upstreams.AsContextDoer(doer),
		opts: opts.withDefaults(), jsonType: []string{"application/json"}}
	if req, err := http.NewRequest(http.MethodGet, c.base, nil); err == nil {
		req.Header["Accept"] = c.jsonType[:1:1]
		c.whole = req
	}
	return c
}

// Get returns one account as a JSON object in the answer's JSON, valid
// until the caller releases the answer. The contract answers an array
// holding the account; a bare object is accepted too, an empty array is a
// 404 KindRejected error, and of a longer array the first record is taken.
func (c *Client) Get(ctx context.Context, id string) (*upstreams.Answer, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	return c.call(ctx, http.MethodGet, c.base+url.PathEscape(id), nil, func(a *upstreams.Answer) error {
		rec, found, err := firstObject(a.JSON)
		switch {
		case err != nil:
			return invalid("account is not a JSON object or array", err)
		case !found:
			return upstreams.NewStatusError(Name, http.StatusNotFound, "", "account "+id+" not found")
		}
		a.JSON = rec
		return nil
	})
}

// Create posts body, a JSON account in backend field names, and returns the
// new account's id. Both the sandbox's {"id": "..."} and the original
// service's non-JSON {id:001...} answers are understood.
func (c *Client) Create(ctx context.Context, body []byte) (string, error) {
	var id string
	ans, err := c.call(ctx, http.MethodPost, c.base, body, func(a *upstreams.Answer) error {
		var ok bool
		if id, ok = replyField(a.JSON, "id"); !ok || id == "" {
			return invalid("create answer has no id: "+upstreams.TrimMessage(string(a.JSON)), nil)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	ans.Release()
	return id, nil
}

// Update changes the fields of the account that fields, a JSON object,
// holds (null clears one) and keeps the others. With UpdateReplace the
// fields are posted as they are, for a backend that keeps what it is not
// sent; with UpdateMerge the account is read first and the whole record,
// the fields merged in, is posted, for a backend that replaces the account
// with what it is sent. An unknown account is a 404 KindRejected error, a
// {status: failure} answer a 400.
func (c *Client) Update(ctx context.Context, id string, fields []byte) error {
	if err := checkID(id); err != nil {
		return err
	}
	body := fields
	if c.opts.Update == UpdateMerge {
		rec, err := c.Get(ctx, id)
		if err != nil {
			return err
		}
		body, err = merge(rec.JSON, fields)
		rec.Release()
		if err != nil {
			return err
		}
	}
	ans, err := c.call(ctx, http.MethodPost, c.base+url.PathEscape(id), body, nil)
	if err != nil {
		return err
	}
	defer ans.Release()
	return checkStatus(ans.JSON, "update")
}

// Delete deletes the account. A {status: failure} answer is a 400
// KindRejected error.
func (c *Client) Delete(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	ans, err := c.call(ctx, http.MethodDelete, c.base+url.PathEscape(id), nil, nil)
	if err != nil {
		return err
	}
	defer ans.Release()
	return checkStatus(ans.JSON, "delete")
}

// call sends one request and returns the body of a 2xx answer, read into a
// pooled buffer; any other status becomes a status error carrying the
// backend's message. judge, when not nil, reads the answer before the call
// ends and may change its JSON: a KindInvalid error from it ends the call
// as invalid (upstreams.Reject), any error is returned.
func (c *Client) call(ctx context.Context, method, u string, body []byte, judge func(*upstreams.Answer) error) (*upstreams.Answer, error) {
	req, err := c.request(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.doer.DoContext(ctx, req)
	if err != nil {
		return nil, upstreams.TransportError(ctx, Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, upstreams.ReadStatusError(Name, resp)
	}
	ans, err := c.answers.Read(resp, maxBody)
	if err != nil {
		return nil, upstreams.TransportError(ctx, Name, err)
	}
	if len(ans.JSON) > maxBody {
		ans.Release()
		return nil, upstreams.Reject(resp, invalid(fmt.Sprintf("answer larger than %d bytes", maxBody), nil))
	}
	if judge != nil {
		if err := judge(ans); err != nil {
			ans.Release()
			return nil, upstreams.Reject(resp, err)
		}
	}
	return ans, nil
}

// request is the request of one call, sent under ctx: the prebuilt GET of
// the base URL when that is what is asked, else a new one.
func (c *Client) request(ctx context.Context, method, u string, body []byte) (*http.Request, error) {
	if c.whole != nil && method == http.MethodGet && body == nil && u == c.base {
		return c.whole, nil
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, &upstreams.Error{Upstream: Name, Kind: upstreams.KindFailed, Err: err}
	}
	req.Header["Accept"] = c.jsonType[:1:1]
	if body != nil {
		req.Header["Content-Type"] = c.jsonType[:1:1]
	}
	return req, nil
}

func rejected(msg string) error {
	return upstreams.NewStatusError(Name, http.StatusBadRequest, "", msg)
}

func invalid(msg string, err error) error {
	return &upstreams.Error{Upstream: Name, Kind: upstreams.KindInvalid, Message: msg, Err: err}
}
