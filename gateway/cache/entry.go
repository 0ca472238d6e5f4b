package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
)

// Entry is one kept answer: rendered once, served to every request of its
// key with the request's own envelope members. Read-only once stored: a
// refresh stores a new Entry.
type Entry struct {
	Answer call.Rendered
	// ETag is the gateway's own validator of Answer (etagOf).
	ETag string
	// Stored is when the backend gave the answer (or confirmed it with a
	// 304); Age counts from it.
	Stored time.Time
	// Fresh is until when it is served without asking the backend;
	// Until is until when it is kept at all (stale windows, revalidation).
	Fresh, Until time.Time
	// NoStale forbids serving it stale (the backend's no-cache or
	// must-revalidate).
	NoStale bool
	// Validators of the backend's answer, for a conditional revalidation;
	// empty when the answer took more than one backend call.
	IfNoneMatch, IfModifiedSince string
	// Refusal, when not nil, is the backend's 404 kept (notFoundTTL):
	// each read answers this error; Answer holds its encoding.
	Refusal *envelope.Error
	// seq is the invalidation sequence when the fetch started (marks):
	// of this replica in memory, of Redis in Redis.
	seq int64
}

// etagOf is a weak entity tag over what a client receives apart from the
// envelope's per-request members (timeStamp, totalTime, userId): the
// status, the flags and the rendered body. It changes whenever the result
// does and never with the clock or the caller. It is weak (W/) because two
// callers get the same tag for answers whose userId differs, which RFC 9110
// 8.8.1 allows of a weak validator only; If-None-Match compares weakly.
func etagOf(a *call.Rendered) string {
	h := sha256.New()
	var head [5]byte
	binary.BigEndian.PutUint16(head[:2], uint16(a.Status))
	head[2] = flagByte(a.OmitFlags, a.MapKeys, a.DropNulls, a.Document)
	_, _ = h.Write(head[:])
	_, _ = h.Write(a.Body)
	var sum [sha256.Size]byte
	return `W/"` + hex.EncodeToString(h.Sum(sum[:0])[:12]) + `"`
}

func flagByte(bits ...bool) byte {
	var b byte
	for i, set := range bits {
		if set {
			b |= 1 << i
		}
	}
	return b
}

// entryHead is an Entry's encoding for the shared store, without the body
// that follows it.
type entryHead struct {
	Status    int    `json:"s"`
	Flags     byte   `json:"f"`
	ETag      string `json:"e"`
	Stored    int64  `json:"t"`
	Fresh     int64  `json:"r"`
	Until     int64  `json:"u"`
	NoStale   bool   `json:"n,omitempty"`
	INM       string `json:"inm,omitempty"`
	IMS       string `json:"ims,omitempty"`
	Seq       int64  `json:"q"`
	BodyBytes int    `json:"b"`
	Refusal   bool   `json:"x,omitempty"`
}

// encode is the entry as the shared store keeps it: a JSON head, a newline,
// the body as it is.
func (e *Entry) encode() []byte {
	a := &e.Answer
	head, _ := json.Marshal(entryHead{Status: a.Status, Flags: flagByte(a.OmitFlags, a.MapKeys, a.DropNulls, a.Document),
		ETag: e.ETag, Stored: e.Stored.UnixNano(), Fresh: e.Fresh.UnixNano(), Until: e.Until.UnixNano(), NoStale: e.NoStale,
		INM: e.IfNoneMatch, IMS: e.IfModifiedSince, Seq: e.seq, BodyBytes: len(a.Body), Refusal: e.Refusal != nil})
	out := make([]byte, 0, len(head)+1+len(a.Body))
	out = append(append(out, head...), '\n')
	return append(out, a.Body...)
}

var errCorrupt = errors.New("cache: a stored entry is not one this gateway wrote")

// decodeEntry reads what encode wrote; anything else is errCorrupt (a
// key written by something else, a value cut short).
func decodeEntry(b []byte) (*Entry, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, errCorrupt
	}
	var h entryHead
	if err := json.Unmarshal(b[:i], &h); err != nil || h.BodyBytes != len(b)-i-1 || h.Status < 200 || h.Status > 599 {
		return nil, errCorrupt
	}
	e := &Entry{ETag: h.ETag, Stored: time.Unix(0, h.Stored), Fresh: time.Unix(0, h.Fresh), Until: time.Unix(0, h.Until),
		NoStale: h.NoStale, IfNoneMatch: h.INM, IfModifiedSince: h.IMS, seq: h.Seq}
	e.Answer = call.Rendered{Status: h.Status, Body: b[i+1:], OmitFlags: h.Flags&1 != 0, MapKeys: h.Flags&2 != 0,
		DropNulls: h.Flags&4 != 0, Document: h.Flags&8 != 0}
	if etagOf(&e.Answer) != e.ETag {
		return nil, errCorrupt
	}
	if h.Refusal {
		var err error
		if e.Refusal, err = decodeRefusal(e.Answer.Body); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// size is what the entry weighs in memory.
func (e *Entry) size() int {
	return len(e.Answer.Body) + len(e.ETag) + len(e.IfNoneMatch) + len(e.IfModifiedSince) + 160
}
