// Package proxy serves routes of kind proxy: a route declared only in
// config.yaml (path template, methods, upstream, upstreamPath, query,
// resultPath, model or produces) that forwards the request to its upstream
// and answers the backend's JSON, key-mapped and enveloped like any other
// route. Adding such a route needs no code.
package proxy

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/handlers/data"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
)

// Backend is a configured upstream as a proxy route sees it.
type Backend struct {
	// Doer sends every call: the upstream's shared client (breaker,
	// bulkhead, timeout, retries, credentials, trace propagation).
	Doer upstreams.Doer
	// BaseURL is what the route's upstreamPath is appended to.
	BaseURL string
	// APIVersion replaces {apiVersion} in upstreamPath (the upstream's
	// options.apiVersion); empty: a route using it is refused.
	APIVersion string
	// Records, when not nil, says the backend is a data API whose answers
	// are typed records in batches: a GET answer holding nextRecordsUrl is
	// one batch, answered with a page whose next carries a cursor; records
	// are key-mapped by their own type and backend addresses rewritten.
	Records *data.Backend
}

// Options tune the proxy handlers. The zero value works: every zero field
// takes its documented default.
type Options struct {
	// MaxDepth bounds the nesting of request bodies. Default 64.
	MaxDepth int
	// Table is the route table: the declared models whose names win over
	// derived ones in typed records, and the data routes backend addresses
	// are rewritten to (Backend.Records).
	Table *routes.Table
	// MaxAnswerBytes bounds the backend answer read into memory; a larger
	// answer is SERIALIZATION_FAILED telling the caller to page (it could
	// never fit mapping.maxOutputChars anyway). Default 32 MiB.
	MaxAnswerBytes int64
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 64
	}
	if o.MaxAnswerBytes <= 0 {
		o.MaxAnswerBytes = 32 << 20
	}
	return o
}

// maxMessageBytes bounds what is read of a rejection's body for its message.
const maxMessageBytes = 4 << 10

// New returns the factory of kind proxy. For each configured method the
// handler:
//
//   - builds the backend URL from upstreamPath, each {param} replaced by the
//     escaped path parameter ("." and ".." are PARAMETER_INVALID 400), then
//     the fixed query of upstreamPath, then the client's query parameters
//     named in the route's query list (others are not passed on);
//   - for POST, PUT and PATCH sends the JSON body reverse-mapped from
//     exposed to internal names (an unknown exposed field is
//     JSON_SERIALIZATION_FAILED 400 and nothing is sent);
//   - answers the backend's JSON, or only its resultPath member, for the
//     writer to key-map and envelope; 204 or an empty body is the result "".
//
// A backend 4xx is SOBJECT_OPERATION_FAILED with the backend's status and
// its message; 5xx, transport failures, timeouts and an open breaker are
// CALLOUT_FAILED (502, 504, 503). A 2xx answer that is not declared JSON, or
// lacks the resultPath member, breaks the backend's contract and is
// CALLOUT_FAILED 502; so is one declared JSON but malformed, which the
// writer finds as it rewrites the answer. An answer too large to read or to
// send (MaxAnswerBytes, mapping.maxOutputChars) is SERIALIZATION_FAILED 500.
func New(backends router.Resolver[Backend], opts Options) router.Factory {
	opts = opts.withDefaults()
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		b, err := backends.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		if b.Doer == nil {
			return nil, fmt.Errorf("upstream %q: no client to send through", rt.Spec.Upstream)
		}
		t, err := parseTarget(rt.Spec.UpstreamPath, routes.PathParams(rt.Template), rt.Spec.Query, b.APIVersion)
		if err != nil {
			return nil, err
		}
		p := &proxy{backend: b, target: t, upstream: rt.Spec.Upstream, resultPath: rt.Spec.ResultPath, opts: opts,
			hostLinks: hostLinks(b.BaseURL)}
		if b.Records != nil {
			if opts.Table == nil {
				return nil, fmt.Errorf("upstream %q: a data API backend needs the route table", rt.Spec.Upstream)
			}
			p.links = data.NewLinker(opts.Table, rt.Spec.Upstream, b.Records.APIVersion())
		}
		handlers := make(map[string]call.Handler, len(rt.Spec.Methods))
		for _, m := range rt.Spec.Methods {
			switch m {
			case http.MethodGet, http.MethodDelete:
				handlers[m] = p.forward
			case http.MethodPost, http.MethodPut, http.MethodPatch:
				handlers[m] = p.forwardBody
			default:
				return nil, fmt.Errorf("methods: kind proxy does not forward %s", m)
			}
		}
		return handlers, nil
	}
}

type proxy struct {
	backend    Backend
	target     *target
	upstream   string
	resultPath string
	opts       Options
	// links rewrites backend addresses when backend.Records is set.
	links *data.Linker
	// hostLinks removes the addresses on the backend's host otherwise.
	hostLinks *mapping.Links
}

func (p *proxy) forward(r *http.Request, c *call.Call) (call.Result, error) {
	return p.send(r, c, nil)
}

func (p *proxy) forwardBody(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := call.ReadInput(r, c, p.opts.MaxDepth)
	if err != nil {
		return call.Result{}, err
	}
	return p.send(r, c, body)
}

func (p *proxy) send(r *http.Request, c *call.Call, body []byte) (call.Result, error) {
	method := r.Method
	if method == http.MethodHead {
		// HEAD is the GET's answer without its body (router.New): the
		// backend is asked as for GET, so status and length are GET's.
		method = http.MethodGet
	}
	paged := p.backend.Records != nil && method == http.MethodGet
	cur := ""
	if paged {
		var err error
		if cur, err = cursor(r); err != nil {
			return call.Result{}, err
		}
	}
	var u string
	if cur != "" {
		// The batch after a cursor is the backend's queryMore.
		u = strings.TrimSuffix(p.backend.BaseURL, "/") + "/services/data/" + p.backend.Records.APIVersion() + "/query/" + cur
	} else {
		var err error
		if u, err = p.target.url(p.backend.BaseURL, r); err != nil {
			return call.Result{}, err
		}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(r.Context(), method, u, rd)
	if err != nil {
		return call.Result{}, fmt.Errorf("proxy request to %s: %w", p.upstream, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.backend.Doer.Do(req)
	if err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return call.Result{}, call.Upstream(rejection(p.upstream, resp), envelope.SObjectOperationFailed)
	}
	if paged {
		data, err := p.read(resp)
		if err != nil {
			return call.Result{}, err
		}
		return p.records(r, c, data, cur)
	}
	return p.answer(resp)
}

// read reads a 2xx JSON answer whole, within MaxAnswerBytes.
func (p *proxy) read(resp *http.Response) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, p.opts.MaxAnswerBytes+1))
	if err != nil {
		return nil, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	if int64(len(data)) > p.opts.MaxAnswerBytes {
		return nil, envelope.New(envelope.SerializationFailed,
			fmt.Sprintf("the answer is over %d bytes; page with limit and offset", p.opts.MaxAnswerBytes))
	}
	if !isJSON(resp.Header.Get("Content-Type")) {
		return nil, call.Upstream(upstreams.Reject(resp, p.invalid("the answer is not JSON (Content-Type %q)", resp.Header.Get("Content-Type"))), "")
	}
	return data, nil
}

// answer reads a 2xx answer into the handler's result.
func (p *proxy) answer(resp *http.Response) (call.Result, error) {
	data, err := upstreams.ReadAnswer(resp, p.opts.MaxAnswerBytes)
	if err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	if int64(len(data)) > p.opts.MaxAnswerBytes {
		return call.Result{}, envelope.New(envelope.SerializationFailed,
			fmt.Sprintf("the answer is over %d bytes; page with limit and offset", p.opts.MaxAnswerBytes))
	}
	status := resp.StatusCode
	if status == http.StatusNoContent {
		status = http.StatusOK // an envelope always has a body
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return call.Result{Status: status}, nil
	}
	if !isJSON(resp.Header.Get("Content-Type")) {
		return call.Result{}, call.Upstream(upstreams.Reject(resp, p.invalid("the answer is not JSON (Content-Type %q)", resp.Header.Get("Content-Type"))), "")
	}
	if p.resultPath != "" {
		m, err := member(data, p.resultPath)
		if err != nil {
			return call.Result{}, call.Upstream(upstreams.Reject(resp, p.invalid("%v", err)), "")
		}
		data = m
	}
	return call.Result{Status: status, JSON: data, Links: p.hostLinks}, nil
}

func (p *proxy) invalid(format string, args ...any) *upstreams.Error {
	return &upstreams.Error{Upstream: p.upstream, Kind: upstreams.KindInvalid, Message: fmt.Sprintf(format, args...)}
}

// isJSON accepts application/json and any +json media type.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}
