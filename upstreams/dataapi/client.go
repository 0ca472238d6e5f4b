// Package dataapi is the adapter of the data discovery backend (UPSTREAMS.md
// B4), a Salesforce-style REST data API: versions, resources, sobjects,
// describe, SOQL query with queryMore, and SOSL search. Its methods return
// the backend's JSON as it came, for the gateway to key-map and wrap; a
// FieldCache keeps the field names of each type's describe.
//
// The adapter adds no credentials: the shared client adds the bearer token
// and the gateway key, application and provider headers from the upstream's
// configuration.
package dataapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// Upstream is the name this adapter's errors carry.
const Upstream = "data"

// maxBodyBytes bounds an answer the adapter reads: a batch of 2,000 wide
// records stays far below it, and a runaway backend cannot exhaust memory.
const maxBodyBytes = 32 << 20

// ErrInvalidArgument is wrapped by the *upstreams.Error a method returns,
// without calling the backend, for an argument the backend could only
// reject: a malformed type name, locator or API version, an empty query or
// search. The *upstreams.Error carries the status and errorCode the backend
// would have answered (404 NOT_FOUND, 400 MALFORMED_QUERY, ...).
var ErrInvalidArgument = errors.New("invalid argument")

// Client calls one data API. It is safe for concurrent use.
type Client struct {
	base    string
	version string
	doer    upstreams.Doer
}

// New returns a client of the data API at baseURL ({data_base}: the adapter
// appends /services/data/...) speaking apiVersion ("v35.0"), sending through
// doer.
func New(baseURL, apiVersion string, doer upstreams.Doer) (*Client, error) {
	if doer == nil {
		return nil, errors.New("dataapi: nil Doer")
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("dataapi: base URL %q is not an http(s) URL without query", baseURL)
	}
	if !validVersion(apiVersion) {
		return nil, fmt.Errorf("dataapi: API version %q is not like v35.0", apiVersion)
	}
	return &Client{base: strings.TrimRight(u.String(), "/"), version: apiVersion, doer: doer}, nil
}

// Versions lists the backend's API versions (GET /services/data).
func (c *Client) Versions(ctx context.Context) ([]byte, error) {
	return c.get(ctx, "/services/data", nil)
}

// Resources maps the resource names of apiVersion to their paths
// (GET /services/data/{apiVersion}). A version not like v35.0 is refused
// with 404 NOT_FOUND without a call.
func (c *Client) Resources(ctx context.Context, apiVersion string) ([]byte, error) {
	if !validVersion(apiVersion) {
		return nil, invalid(404, "NOT_FOUND", "no such API version: "+strconv.Quote(truncate(apiVersion, 20)))
	}
	return c.get(ctx, "/services/data/"+apiVersion, nil)
}

// SObjects lists the record types (describeGlobal).
func (c *Client) SObjects(ctx context.Context) ([]byte, error) {
	return c.get(ctx, c.path("/sobjects"), nil)
}

// SObject returns the basic information and recent items of type typ.
// A malformed type name is refused with 404 NOT_FOUND without a call.
func (c *Client) SObject(ctx context.Context, typ string) ([]byte, error) {
	if !validName(typ) {
		return nil, invalidType(typ)
	}
	return c.get(ctx, c.path("/sobjects/"+typ), nil)
}

// Describe returns the full describe of type typ, its fields in order.
// A malformed type name is refused with 404 NOT_FOUND without a call.
func (c *Client) Describe(ctx context.Context, typ string) ([]byte, error) {
	if !validName(typ) {
		return nil, invalidType(typ)
	}
	return c.get(ctx, c.path("/sobjects/"+typ+"/describe"), nil)
}

// Query runs a SOQL query and returns the first batch; when "done" is false
// the answer's nextRecordsUrl gives, through Locator, the locator of
// QueryMore. An empty query is refused with 400 MALFORMED_QUERY.
func (c *Client) Query(ctx context.Context, soql string) ([]byte, error) {
	if strings.TrimSpace(soql) == "" {
		return nil, invalid(400, "MALFORMED_QUERY", "empty query")
	}
	return c.get(ctx, c.path("/query"), url.Values{"q": {soql}})
}

// QueryMore returns the batch of a query that locator (from Locator) points
// to. A malformed locator is refused with 400 INVALID_QUERY_LOCATOR.
func (c *Client) QueryMore(ctx context.Context, locator string) ([]byte, error) {
	if !validLocator(locator) {
		return nil, invalid(400, "INVALID_QUERY_LOCATOR", "malformed query locator")
	}
	return c.get(ctx, c.path("/query/"+locator), nil)
}

// Search runs a SOSL search. An empty search is refused with 400
// MALFORMED_SEARCH.
func (c *Client) Search(ctx context.Context, sosl string) ([]byte, error) {
	if strings.TrimSpace(sosl) == "" {
		return nil, invalid(400, "MALFORMED_SEARCH", "empty search")
	}
	return c.get(ctx, c.path("/search"), url.Values{"q": {sosl}})
}

func (c *Client) path(resource string) string {
	return "/services/data/" + c.version + resource
}

// get sends GET base+path?query and returns the 2xx JSON body; every
// failure is an *upstreams.Error.
func (c *Client) get(ctx context.Context, path string, query url.Values) ([]byte, error) {
	u := c.base + path
	if query != nil {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindFailed, Err: err}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.doer.Do(req)
	if err != nil {
		return nil, upstreams.TransportError(ctx, Upstream, err)
	}
	defer resp.Body.Close()
	body, readErr := upstreams.ReadAnswer(resp, maxBodyBytes)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, statusError(resp.StatusCode, body)
	}
	switch {
	case readErr != nil:
		return nil, upstreams.TransportError(ctx, Upstream, readErr)
	case len(body) > maxBodyBytes:
		return nil, upstreams.Reject(resp, &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindInvalid, Status: resp.StatusCode,
			Message: fmt.Sprintf("answer larger than %d bytes", maxBodyBytes)})
	case !json.Valid(body):
		return nil, upstreams.Reject(resp, &upstreams.Error{Upstream: Upstream, Kind: upstreams.KindInvalid, Status: resp.StatusCode,
			Message: "answer is not JSON"})
	}
	return body, nil
}

// transportError classifies a failure to get an answer; an *upstreams.Error
// from the shared client passes through unchanged.

func invalid(status int, code, message string) *upstreams.Error {
	e := upstreams.NewStatusError(Upstream, status, code, message)
	e.Err = ErrInvalidArgument
	return e
}

func invalidType(typ string) *upstreams.Error {
	return invalid(404, "NOT_FOUND", "no such record type: "+strconv.Quote(truncate(typ, 80)))
}
