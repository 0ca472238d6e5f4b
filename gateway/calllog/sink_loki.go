package calllog

import (
	"slices"
	"strconv"

	"github.com/restgate/gateway/mapping"
)

// lokiSink POSTs Loki's push API JSON (POST /loki/api/v1/push,
// Content-Type application/json): one stream per route and status class,
// the fixed labels added, each value [unix nanoseconds as a string, line].
// Loki answers 204; a 4xx means it refused the push (it may have kept the
// valid entries of it).
type lokiSink struct {
	format string
	// fixed is the fixed labels, sorted, as JSON members ending in a comma.
	fixed []byte
	// order and groups are the streams of the batch being encoded.
	order  []streamKey
	groups map[streamKey][]int
	line   []byte
}

type streamKey struct {
	route  string
	status byte // the status's first digit
}

func newLokiSink(format string, labels map[string]string) *lokiSink {
	l := &lokiSink{format: format, groups: make(map[streamKey][]int)}
	names := make([]string, 0, len(labels))
	for name := range labels {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		l.fixed = mapping.AppendString(l.fixed, name)
		l.fixed = append(l.fixed, ':')
		l.fixed = mapping.AppendString(l.fixed, labels[name])
		l.fixed = append(l.fixed, ',')
	}
	return l
}

func (l *lokiSink) contentType() string { return "application/json" }

func (l *lokiSink) encode(dst []byte, items []item) []byte {
	if len(l.groups) > 64 {
		clear(l.groups)
	}
	l.order = l.order[:0]
	for k, idx := range l.groups {
		l.groups[k] = idx[:0]
	}
	for i := range items {
		k := streamKey{route: items[i].e.Route, status: statusClass(items[i].e.Status)}
		if len(l.groups[k]) == 0 {
			l.order = append(l.order, k)
		}
		l.groups[k] = append(l.groups[k], i)
	}
	dst = append(dst, `{"streams":[`...)
	for si, k := range l.order {
		if si > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"stream":{`...)
		dst = append(dst, l.fixed...)
		dst = append(dst, `"route":`...)
		dst = mapping.AppendString(dst, k.route)
		dst = append(dst, `,"status":"`...)
		dst = append(dst, k.status, 'x', 'x')
		dst = append(dst, `"},"values":[`...)
		for vi, i := range l.groups[k] {
			if vi > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `["`...)
			dst = strconv.AppendInt(dst, items[i].e.Time.UnixNano(), 10)
			dst = append(dst, `",`...)
			l.line = appendLine(l.line[:0], l.format, &items[i])
			dst = mapping.AppendString(dst, l.line)
			dst = append(dst, ']')
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, "]}"...)
}

func (l *lokiSink) answerLimit() int { return 0 }

func (l *lokiSink) decide(_ []byte, _ []item, out []verdict) string {
	allDelivered(out)
	return ""
}

// statusClass is the first digit of an HTTP status ('0' when there is none).
func statusClass(status int) byte {
	if status < 100 || status > 599 {
		return '0'
	}
	return byte('0' + status/100)
}
