package calllog

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/upstreams"
)

// item is an entry ready to send: its body redacted and truncated (in the
// item's own buffer), and its id, which names it to the collector for good
// (a batch sent again, or read again from the disk queue, carries the same
// ids, so a store can drop what it already has). Items are reused from
// batch to batch, and id's bytes with them, so that naming an entry
// allocates nothing.
type item struct {
	e  Entry
	id []byte
}

// prepare makes q's entry an item: the body is redacted, then truncated
// to MaxBodyBytes, and the entry gets a new id.
func (s *Shipper) prepare(q *queued, it *item) {
	body := it.e.Body[:0]
	it.e = q.e
	it.e.Body = s.masker.appendCopied(body, q.e.Body, q.omitted)
	it.id = strconv.AppendUint(append(it.id[:0], s.idPrefix...), s.ids.Add(1), 36)
}

// recordVersion is the first byte of a disk record; a record of another
// version than these is skipped as corrupt. Version 2 added the API usage;
// records of version 1, written before, are read without it.
const (
	recordVersion   = 2
	recordVersionV1 = 1
)

// encodeItem appends it as one disk queue record.
func encodeItem(dst []byte, it *item) []byte {
	e := &it.e
	dst = append(dst, recordVersion)
	dst = appendString(dst, it.id)
	dst = binary.AppendVarint(dst, e.Time.UnixNano())
	dst = appendString(dst, e.Text)
	dst = appendString(dst, e.UserID)
	dst = appendString(dst, e.TraceID)
	dst = append(dst, e.SpanID[:]...)
	dst = append(dst, byte(e.TraceFlags))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.TotalTime))
	dst = appendString(dst, e.Method)
	dst = appendString(dst, e.Path)
	dst = appendString(dst, e.Body)
	dst = appendString(dst, e.Route)
	dst = appendString(dst, e.Version)
	dst = appendString(dst, e.ResponseCode)
	dst = binary.AppendUvarint(dst, uint64(max(e.Status, 0)))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(e.UpstreamTime))
	dup := byte(0)
	if e.Duplicate {
		dup = 1
	}
	dst = append(dst, dup)
	dst = binary.AppendUvarint(dst, uint64(max(e.APIUsage.Used, 0)))
	return binary.AppendUvarint(dst, uint64(max(e.APIUsage.Limit, 0)))
}

func appendString[T string | []byte](dst []byte, s T) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

var errRecord = errors.New("calllog: malformed disk record")

// decodeItem reads a record written by encodeItem into it, reusing its
// body buffer.
func decodeItem(b []byte, it *item) error {
	d := decoder{b: b}
	version := d.byte()
	if version != recordVersion && version != recordVersionV1 {
		return errRecord
	}
	e := &it.e
	it.id = append(it.id[:0], d.lenBytes()...)
	e.Time = time.Unix(0, d.varint()).UTC()
	e.Text = d.str()
	e.UserID = d.str()
	e.TraceID = d.str()
	copy(e.SpanID[:], d.bytes(len(e.SpanID)))
	e.TraceFlags = trace.TraceFlags(d.byte())
	e.TotalTime = math.Float64frombits(d.uint64())
	e.Method = d.str()
	e.Path = d.str()
	e.Body = append(e.Body[:0], d.lenBytes()...)
	e.Route = d.str()
	e.Version = d.str()
	e.ResponseCode = d.str()
	status := d.uvarint()
	e.UpstreamTime = math.Float64frombits(d.uint64())
	e.Duplicate = d.byte() == 1
	e.APIUsage = upstreams.Usage{}
	if version == recordVersion {
		used, limit := d.uvarint(), d.uvarint()
		if used > math.MaxUint32 || limit > math.MaxUint32 {
			return errRecord
		}
		e.APIUsage = upstreams.Usage{Used: int64(used), Limit: int64(limit)}
	}
	if d.bad || len(d.b) != 0 || status > math.MaxInt32 {
		return errRecord
	}
	e.Status = int(status)
	return nil
}

// decoder reads a record; any problem sets bad and yields zero values.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) bytes(n int) []byte {
	if d.bad || n < 0 || n > len(d.b) {
		d.bad = true
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	v := d.bytes(1)
	if v == nil {
		return 0
	}
	return v[0]
}

func (d *decoder) uint64() uint64 {
	v := d.bytes(8)
	if v == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(v)
}

func (d *decoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.bad {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) lenBytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.bad = true
		return nil
	}
	return d.bytes(int(n))
}

func (d *decoder) str() string { return string(d.lenBytes()) }
