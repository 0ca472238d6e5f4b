package mapping

import "encoding/binary"

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
