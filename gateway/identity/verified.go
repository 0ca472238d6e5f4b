package identity

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"time"

	"github.com/maypok86/otter/v2"

	"github.com/restgate/gateway/gateway/call"
)

// verifiedTokens remembers the tokens whose signature and claims were
// checked, by the SHA-256 of the token, so that a token presented again
// costs a digest and a lookup instead of a signature check (an RS256
// verification is tens of microseconds; a lookup is well under one).
//
// An entry proves nothing by itself being there: it is used only while the
// token is unexpired (exp plus the leeway, on the parser's clock), and, for
// a key set, only while the set still holds under the token's key id the
// very key that verified it. A key the identity provider removed or
// replaced therefore stops its tokens on the first request after the key
// set is refreshed, and an expired token on the first request after it
// expires, however recently it was verified. Entries are bounded in number
// (otter's W-TinyLFU eviction); an evicted token is verified again.
type verifiedTokens struct {
	cache *otter.Cache[[sha256.Size]byte, *verified]
}

// verified is what checking a token established.
type verified struct {
	id call.Identity
	// until is the last instant the token is accepted: exp plus leeway.
	until time.Time
	// kid and key are the key id the token named and the key that
	// verified it; key is nil when a shared secret did.
	kid string
	key any
}

func newVerifiedTokens(entries int) *verifiedTokens {
	return &verifiedTokens{cache: otter.Must(&otter.Options[[sha256.Size]byte, *verified]{MaximumSize: entries})}
}

// digest is the SHA-256 of a token, copied through a stack buffer so that
// tokens of ordinary size are hashed without allocating.
func digest(raw string) [sha256.Size]byte {
	var buf [2048]byte
	return sha256.Sum256(append(buf[:0], raw...))
}

func (v *verifiedTokens) get(sum [sha256.Size]byte) (*verified, bool) {
	return v.cache.GetIfPresent(sum)
}

func (v *verifiedTokens) put(sum [sha256.Size]byte, e *verified) { v.cache.Set(sum, e) }

func (v *verifiedTokens) drop(sum [sha256.Size]byte) { v.cache.Invalidate(sum) }

// sameKey reports whether the key set's current key is the one that
// verified a token: the same parsed key, not merely an equal one, so any
// refresh that replaces the key's material makes the token verified again.
// Only the key types RS256 and ES256 verify with can match.
func sameKey(verifiedWith, current any) bool {
	switch k := verifiedWith.(type) {
	case *rsa.PublicKey:
		c, ok := current.(*rsa.PublicKey)
		return ok && k == c
	case *ecdsa.PublicKey:
		c, ok := current.(*ecdsa.PublicKey)
		return ok && k == c
	}
	return false
}
