package mapping

import "encoding/binary"

// moveSlack is the room moveShort needs past the end of what it copies,
// in the source and in the destination.
const moveSlack = 32

// moveShort copies the n bytes of s at si to d at di. Runs of up to 32
// bytes are moved as one or two 16-byte blocks, reading and writing past
// n: both slices must have moveSlack bytes of room past the run. For the
// short runs of the member loop this beats the call to memmove that copy
// makes, which there also costs saving and restoring every live register.
func moveShort(d []byte, di int, s []byte, si, n int) {
	switch {
	case n <= 16:
		*(*[16]byte)(d[di:]) = *(*[16]byte)(s[si:])
	case n <= 32:
		*(*[32]byte)(d[di:]) = *(*[32]byte)(s[si:])
	default:
		copy(d[di:di+n], s[si:si+n])
	}
}

// load64 reads the eight bytes of b at i as a little-endian word. The
// full slice expression costs one bounds check, where b[i:] also pays to
// clamp the pointer of a possibly empty remainder.
func load64(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i : i+8 : i+8])
}
