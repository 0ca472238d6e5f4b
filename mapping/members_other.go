//go:build !amd64 || purego

package mapping

// fastMembers is fastMembersGo where there is no assembly loop.
func (r *rewriter) fastMembers(src []byte, pos int, dst []byte, slots []keySlot, i int, record bool) (int, int, []byte, bool) {
	return r.fastMembersGo(src, pos, dst, slots, i, record)
}
