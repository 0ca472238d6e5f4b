package calllog

import (
	"encoding/json"
	"fmt"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/mapping"
)

// elasticSink POSTs Elasticsearch's bulk API (POST /_bulk, Content-Type
// application/x-ndjson): for every entry a create action naming the index
// and the entry's id as _id, then the document, the entry's JSON object
// with @timestamp. create (not index) works on data streams too, and makes
// a batch sent again harmless: an entry already stored answers 409.
//
// The bulk API answers 200 even when documents failed; the answer's items
// (in the order of the actions) say which: 2xx and 409 are stored, 429 and
// 5xx are sent again, anything else is refused for good.
type elasticSink struct {
	index  string
	answer bulkAnswer
}

type bulkAnswer struct {
	Errors bool                  `json:"errors"`
	Items  []map[string]bulkItem `json:"items"`
}

type bulkItem struct {
	Status int `json:"status"`
	Error  *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
}

func (es *elasticSink) contentType() string { return "application/x-ndjson" }

func (es *elasticSink) encode(dst []byte, items []item) []byte {
	for i := range items {
		it := &items[i]
		dst = append(dst, `{"create":{"_index":`...)
		dst = mapping.AppendString(dst, es.index)
		dst = append(dst, `,"_id":`...)
		dst = mapping.AppendString(dst, it.id)
		dst = append(dst, "}}\n"...)
		dst = append(dst, `{"@timestamp":"`...)
		dst = envelope.AppendTimestamp(dst, it.e.Time)
		dst = append(dst, `","id":`...)
		dst = mapping.AppendString(dst, it.id)
		dst = append(dst, ',')
		dst = appendJSONFields(dst, &it.e, it.e.Body)
		dst = append(dst, "}\n"...)
	}
	return dst
}

// answerLimit leaves room for the answer of the largest batch (about 300
// bytes an item).
func (es *elasticSink) answerLimit() int { return 16 << 20 }

func (es *elasticSink) decide(answer []byte, items []item, out []verdict) string {
	es.answer = bulkAnswer{Items: es.answer.Items[:0]}
	if err := json.Unmarshal(answer, &es.answer); err != nil || len(es.answer.Items) != len(items) {
		if err == nil && !es.answer.Errors {
			allDelivered(out)
			return ""
		}
		for i := range out {
			out[i] = retry
		}
		return fmt.Sprintf("the answer is not a bulk answer for %d items", len(items))
	}
	if !es.answer.Errors {
		allDelivered(out)
		return ""
	}
	problem := ""
	for i, m := range es.answer.Items {
		var it bulkItem
		for _, v := range m { // one action per item
			it = v
		}
		switch {
		case it.Status >= 200 && it.Status <= 299, it.Status == 409:
			out[i] = delivered
		case it.Status == 429 || it.Status >= 500:
			out[i] = retry
		default:
			out[i] = rejected
			if problem == "" && it.Error != nil {
				problem = fmt.Sprintf("status %d %s: %s", it.Status, it.Error.Type, cut(it.Error.Reason, 200))
			}
		}
	}
	return problem
}

// cut shortens s to at most n bytes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
