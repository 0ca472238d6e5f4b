// Package tracingtest is an OTLP trace receiver, as a collector would run
// it, for the tests of the trace pipeline and the load harness: it decodes
// every export (OTLP/HTTP protobuf on ServeHTTP, OTLP/gRPC through
// RegisterGRPC) and keeps what it was sent.
package tracingtest

import (
	"context"
	"io"
	"net/http"
	"sync"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// maxExport bounds one export's body.
const maxExport = 16 << 20

// Export is one export request as received.
type Export struct {
	// Path is the HTTP request's path ("" over gRPC).
	Path string
	// Header holds the HTTP headers, or the gRPC metadata under canonical
	// header names.
	Header http.Header
	// Request is the decoded ExportTraceServiceRequest.
	Request *collectortrace.ExportTraceServiceRequest
}

// Receiver keeps the exports it received. The zero value is ready; safe
// for concurrent use.
type Receiver struct {
	collectortrace.UnimplementedTraceServiceServer

	// Keep, when false, counts spans without keeping the exports (for
	// long runs); set it before the first export. A Receiver from New
	// keeps them.
	Keep bool

	mu      sync.Mutex
	exports []Export
	spans   int
}

// New returns a Receiver that keeps every export.
func New() *Receiver { return &Receiver{Keep: true} }

// ServeHTTP takes an OTLP/HTTP export: a POST of a protobuf
// ExportTraceServiceRequest, answered with an empty
// ExportTraceServiceResponse as the OTLP specification says. Anything else
// is a 400.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, maxExport))
	if err != nil || req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP/HTTP protobuf export", http.StatusBadRequest)
		return
	}
	var ex collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &ex); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(Export{Path: req.URL.Path, Header: req.Header.Clone(), Request: &ex})
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// RegisterGRPC serves r as the OTLP/gRPC trace service of srv.
func (r *Receiver) RegisterGRPC(srv *grpc.Server) {
	collectortrace.RegisterTraceServiceServer(srv, r)
}

// Export implements the OTLP/gRPC trace service.
func (r *Receiver) Export(ctx context.Context, ex *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	h := make(http.Header, len(md))
	for k, v := range md {
		h[http.CanonicalHeaderKey(k)] = v
	}
	r.add(Export{Header: h, Request: ex})
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

func (r *Receiver) add(e Export) {
	n := 0
	for _, rs := range e.Request.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			n += len(ss.GetSpans())
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spans += n
	if r.Keep {
		r.exports = append(r.exports, e)
	}
}

// Exports are the exports kept so far.
func (r *Receiver) Exports() []Export {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Export(nil), r.exports...)
}

// Spans are the spans of the exports kept so far, in arrival order.
func (r *Receiver) Spans() []*tracepb.Span {
	var out []*tracepb.Span
	for _, e := range r.Exports() {
		for _, rs := range e.Request.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				out = append(out, ss.GetSpans()...)
			}
		}
	}
	return out
}

// SpanCount is how many spans were received, kept or not.
func (r *Receiver) SpanCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spans
}
