package data

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// nextRecordsURL is the member of a query answer that points at the next
// batch.
const nextRecordsURL = "nextRecordsUrl"

// recordOptions say how rewriteRecords transforms an answer.
type recordOptions struct {
	// member names the array of records ("records", "searchRecords").
	member string
	// rewrite applies to every record; its Map is set per record.
	rewrite mapping.Options
	// keyMap returns the map of records of a type ("" when a record has no
	// attributes.type); nil copies the records unmapped.
	keyMap func(typ string) (*mapping.KeyMap, error)
	// next rewrites a nextRecordsUrl.
	next func(url string) (string, error)
}

// rewriteRecords rewrites a query or search answer without decoding it into
// Go values: the top-level members are copied as they came, in their order,
// except the records array, whose elements are rewritten one by one with
// the key map of their type, and nextRecordsUrl, which next replaces. A
// top-level array is taken as the records themselves (the older search
// answer). A body that is not such JSON is a KindInvalid *upstreams.Error.
func rewriteRecords(body []byte, o recordOptions) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return nil, invalidAnswer("not JSON", err)
	}
	if tok == json.Delim('[') {
		out, err := rewriteArray(nil, dec, o)
		if err != nil {
			return nil, err
		}
		return out, atEnd(dec)
	}
	if tok != json.Delim('{') {
		return nil, invalidAnswer("not an object", nil)
	}
	out := make([]byte, 0, len(body)+len(body)/8)
	out = append(out, '{')
	for n := 0; dec.More(); n++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, invalidAnswer("not JSON", err)
		}
		key, _ := tok.(string)
		if n > 0 {
			out = append(out, ',')
		}
		out = mapping.AppendString(out, key)
		out = append(out, ':')
		switch key {
		case o.member:
			if out, err = rewriteMember(out, dec, o); err != nil {
				return nil, err
			}
		case nextRecordsURL:
			var u *string
			if err := dec.Decode(&u); err != nil {
				return nil, invalidAnswer(nextRecordsURL+" is not a string", err)
			}
			if u == nil {
				out = append(out, "null"...)
				continue
			}
			next, err := o.next(*u)
			if err != nil {
				return nil, err
			}
			out = mapping.AppendString(out, next)
		default:
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, invalidAnswer("not JSON", err)
			}
			out = append(out, v...)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, invalidAnswer("not JSON", err)
	}
	out = append(out, '}')
	return out, atEnd(dec)
}

// rewriteMember rewrites the value of the records member: an array, or null.
func rewriteMember(out []byte, dec *json.Decoder, o recordOptions) ([]byte, error) {
	tok, err := dec.Token()
	switch {
	case err != nil:
		return nil, invalidAnswer("not JSON", err)
	case tok == nil:
		return append(out, "null"...), nil
	case tok != json.Delim('['):
		return nil, invalidAnswer(o.member+" is not an array", nil)
	}
	return rewriteArray(out, dec, o)
}

// rewriteArray rewrites the elements of an array whose '[' was read, and
// reads its ']'.
func rewriteArray(out []byte, dec *json.Decoder, o recordOptions) ([]byte, error) {
	out = append(out, '[')
	for n := 0; dec.More(); n++ {
		var rec json.RawMessage
		if err := dec.Decode(&rec); err != nil {
			return nil, invalidAnswer("not JSON", err)
		}
		if n > 0 {
			out = append(out, ',')
		}
		km, err := o.keyMap(recordType(rec))
		if err != nil {
			return nil, err
		}
		opts := o.rewrite
		opts.Map = km
		if out, err = mapping.Rewrite(out, rec, opts); err != nil {
			return nil, invalidAnswer(fmt.Sprintf("record %d", n), err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, invalidAnswer("not JSON", err)
	}
	return append(out, ']'), nil
}

// recordType is a record's attributes.type, or "" when it has none.
func recordType(rec []byte) string {
	var r struct {
		Attributes struct {
			Type string `json:"type"`
		} `json:"attributes"`
	}
	if json.Unmarshal(rec, &r) != nil {
		return ""
	}
	return r.Attributes.Type
}

func atEnd(dec *json.Decoder) error {
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalidAnswer("data after the answer", err)
	}
	return nil
}

func invalidAnswer(what string, err error) error {
	return &upstreams.Error{Upstream: dataapi.Upstream, Kind: upstreams.KindInvalid,
		Message: "the answer's records cannot be read: " + what, Err: err}
}

// keyMaps returns the key-map lookup of one call: a declared model's map
// for the version, else the map derived from the type's cached describe;
// nil (unmapped) for a record without a type or a type the backend cannot
// describe. Maps are looked up once per type per call.
func (h *handler) keyMaps(ctx context.Context, version string) func(string) (*mapping.KeyMap, error) {
	seen := make(map[string]*mapping.KeyMap)
	return func(typ string) (*mapping.KeyMap, error) {
		if typ == "" {
			return nil, nil
		}
		if km, ok := seen[typ]; ok {
			return km, nil
		}
		km, err := h.keyMap(ctx, typ, version)
		if err != nil {
			return nil, err
		}
		seen[typ] = km
		return km, nil
	}
}

func (h *handler) keyMap(ctx context.Context, typ, version string) (*mapping.KeyMap, error) {
	if m, ok := h.table.Models[typ]; ok && m != nil {
		return m.Maps[version], nil
	}
	fields, err := h.backend.Fields(ctx, typ)
	if err != nil {
		if ue := upstreams.AsError(err); ue != nil && ue.Status == http.StatusNotFound {
			return nil, nil
		}
		return nil, err
	}
	km, err := mapping.DeriveKeyMap(fields)
	if err != nil {
		return nil, envelope.Wrap(envelope.SerializationFailed, err, "the field names of "+typ+" collide")
	}
	return km, nil
}
