package calllog

// verdict is what became of one item of a POST.
type verdict byte

const (
	// pending: not sent yet.
	pending verdict = iota
	// delivered: the collector has it.
	delivered
	// rejected: the collector refused it for good.
	rejected
	// retry: the collector could not take it now; send it again later.
	retry
)

// sink shapes batches for one kind of collector and reads its answers.
// Each sender has its own (newSink), so a sink may keep scratch space.
type sink interface {
	// contentType is the batch's Content-Type.
	contentType() string
	// encode appends the request body for items.
	encode(dst []byte, items []item) []byte
	// answerLimit is how many bytes of a 2xx answer decide reads.
	answerLimit() int
	// decide reads a 2xx answer, writes each item's verdict into out
	// (len(items) long) and returns a problem worth logging, or "".
	decide(answer []byte, items []item, out []verdict) string
}

func newSink(cfg Config) sink {
	switch cfg.Sink {
	case SinkLoki:
		return newLokiSink(cfg.Format, cfg.Loki.Labels)
	case SinkElasticsearch:
		return &elasticSink{index: cfg.Elasticsearch.Index}
	case SinkOTLP:
		return &otlpSink{format: cfg.Format}
	}
	return &httpSink{format: cfg.Format}
}

// appendLine appends an item's line in format: the seed's text line, or
// the JSON object.
func appendLine(dst []byte, format string, it *item) []byte {
	if format == "text" {
		return AppendLine(dst, &it.e, it.e.Body)
	}
	return appendJSONObject(dst, it)
}

// allDelivered is the verdict of a collector whose 2xx answer takes the
// whole batch.
func allDelivered(out []verdict) {
	for i := range out {
		out[i] = delivered
	}
}

// httpSink POSTs lines: the seed's text lines (text/plain), JSON lines
// (application/x-ndjson), or one JSON array (application/json), which is
// what Fluent Bit's and Fluentd's HTTP inputs take.
type httpSink struct{ format string }

func (h *httpSink) contentType() string {
	switch h.format {
	case "jsonl":
		return "application/x-ndjson"
	case "json":
		return "application/json"
	}
	return "text/plain; charset=utf-8"
}

func (h *httpSink) encode(dst []byte, items []item) []byte {
	if h.format == "json" {
		dst = append(dst, '[')
		for i := range items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONObject(dst, &items[i])
		}
		return append(dst, ']')
	}
	for i := range items {
		dst = appendLine(dst, h.format, &items[i])
		dst = append(dst, '\n')
	}
	return dst
}

func (h *httpSink) answerLimit() int { return 0 }

func (h *httpSink) decide(_ []byte, _ []item, out []verdict) string {
	allDelivered(out)
	return ""
}
