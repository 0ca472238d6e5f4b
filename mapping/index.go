package mapping

import (
	"encoding/binary"
	"math/bits"
)

// nameIndex finds a key among a fixed set of names, the lookup Rewrite
// makes for every key it cannot predict. It hashes only the length and
// the first and last eight bytes, where Go's map hashes every byte and
// pays for generality: field names are short and differ at their ends.
// Equal hashes are told apart by comparing the names.
type nameIndex struct {
	// table holds, per bucket, 1 + the position in names of the name
	// stored there; 0 is an empty bucket. Its length is a power of two,
	// at least twice the number of names, so probe runs stay short.
	table []int32
	names []string
	shift uint
}

// newNameIndex indexes names; a repeated name is found at its first
// position.
func newNameIndex(names []string) nameIndex {
	size := 8
	for size < 2*len(names) {
		size *= 2
	}
	x := nameIndex{table: make([]int32, size), names: names, shift: uint(64 - bits.TrailingZeros(uint(size)))}
	for i, name := range names {
		if x.find([]byte(name)) >= 0 {
			continue
		}
		b := x.bucket(nameHash([]byte(name)))
		for x.table[b] != 0 {
			b = (b + 1) & (len(x.table) - 1)
		}
		x.table[b] = int32(i + 1)
	}
	return x
}

// find returns the position of key in the indexed names, or -1.
func (x *nameIndex) find(key []byte) int {
	if len(x.table) == 0 {
		return -1
	}
	for b := x.bucket(nameHash(key)); ; b = (b + 1) & (len(x.table) - 1) {
		e := int(x.table[b]) - 1
		if e < 0 {
			return -1
		}
		if x.names[e] == string(key) {
			return e
		}
	}
}

func (x *nameIndex) bucket(h uint64) int {
	return int(h >> x.shift)
}

// nameHash mixes the length and the first and last eight bytes of key.
func nameHash(key []byte) uint64 {
	n := len(key)
	var h uint64
	if n >= 8 {
		h = binary.LittleEndian.Uint64(key) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(key[n-8:]), 29)
	} else {
		for _, c := range key {
			h = h<<8 | uint64(c)
		}
	}
	h ^= uint64(n) << 56
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>32
}
