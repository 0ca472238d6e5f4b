package duplicates

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
	"io"
)

// Request is what makes two calls the same one: the same user sending the
// same method, path (with its ids, as sent), query (as sent) and body. The
// route template is not part of it: two GETs of different accounts share a
// template and are different requests.
type Request struct {
	User   string
	Method string
	// Path is the request's path as sent (escaped form when it had one).
	Path string
	// Query is the raw query string, without '?', as sent: the same
	// parameters in another order are another request.
	Query string
	Body  []byte
}

// Digest is a request's key in a store shared by several processes: the
// first 128 bits of the SHA-256 of its parts. Unlike the Detector's seeded
// hash it is the same in every replica, and being a cryptographic hash, no
// client can make two different requests share one.
type Digest [16]byte

// Digest returns r's key for a shared store.
func (r Request) Digest() Digest {
	h := sha256.New()
	lens := r.lengths()
	_, _ = h.Write(lens[:])
	for _, part := range [...]string{r.User, r.Method, r.Path, r.Query} {
		_, _ = io.WriteString(h, part)
	}
	_, _ = h.Write(r.Body)
	var sum [sha256.Size]byte
	var d Digest
	copy(d[:], h.Sum(sum[:0]))
	return d
}

// sum64 is the Detector's in-process key: seeded, so a client cannot aim
// two requests at one value. The same bytes as Digest, hashed on the
// concrete maphash.Hash so that nothing escapes to the heap.
func (r Request) sum64(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	lens := r.lengths()
	_, _ = h.Write(lens[:])
	_, _ = h.WriteString(r.User)
	_, _ = h.WriteString(r.Method)
	_, _ = h.WriteString(r.Path)
	_, _ = h.WriteString(r.Query)
	_, _ = h.Write(r.Body)
	return h.Sum64()
}

// lengths prefixes the parts: each but the body is length-prefixed, so
// shifting bytes from one part to the next cannot make two requests equal.
func (r Request) lengths() [32]byte {
	var lens [32]byte
	binary.LittleEndian.PutUint64(lens[0:], uint64(len(r.User)))
	binary.LittleEndian.PutUint64(lens[8:], uint64(len(r.Method)))
	binary.LittleEndian.PutUint64(lens[16:], uint64(len(r.Path)))
	binary.LittleEndian.PutUint64(lens[24:], uint64(len(r.Query)))
	return lens
}
