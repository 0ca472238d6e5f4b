package mapping

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// This file holds the word-at-a-time helpers of the scanners and of the
// member loop.

// skipPlain returns the index of the first byte from i on that a string
// scan must look at: a quote, a backslash, a control character or a
// non-ASCII byte; len(src) if there is none. Most bytes are plain ASCII,
// so it skips them eight at a time.
func skipPlain(src []byte, i int) int {
	for ; i+8 <= len(src); i += 8 {
		if m := specialBytes(load64(src, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(src) && src[i] >= 0x20 && src[i] < utf8.RuneSelf && src[i] != '"' && src[i] != '\\' {
		i++
	}
	return i
}

// Byte-wise constants of specialBytes.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialBytes flags (in its high bit) every byte of the eight in w, read
// little-endian, that a string scan cannot skip: a quote, a backslash, a
// control character or a non-ASCII byte. Only the lowest flagged byte is
// guaranteed exact (a borrow can flag bytes above a true match), which is
// all scanString uses.
func specialBytes(w uint64) uint64 {
	q := w ^ (lsb * '"')
	b := w ^ (lsb * '\\')
	return ((q-lsb)&^q | (b-lsb)&^b | (w-lsb*0x20)&^w | w) & msb
}

// moveSlack is the room the member loop's block moves need past the end
// of what they copy, in the source and in the destination: runs of up to
// 32 bytes are moved as one or two 16-byte blocks. For the short runs of
// that loop this beats the call to memmove that copy makes, which there
// also costs saving and restoring every live register.
const moveSlack = 32

// move16 copies the 16 bytes of s at si to d at di, as one block: full
// slice expressions, so no pointer clamping, and an array assignment of a
// size the compiler moves in one register.
func move16(d []byte, di int, s []byte, si int) {
	*(*[16]byte)(d[di : di+16 : di+16]) = *(*[16]byte)(s[si : si+16 : si+16])
}

// load64 reads the eight bytes of b at i as a little-endian word. The
// full slice expression costs one bounds check, where b[i:] also pays to
// clamp the pointer of a possibly empty remainder.
func load64(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i : i+8 : i+8])
}
