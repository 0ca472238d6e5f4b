//go:build !purego

package mapping

// What memberLoop reports: it stopped before a member the general path
// must take, it wrote the object's last member (npos on the closing
// brace), or the key at npos is not the one remembered in slots[ni].
const (
	memberStop = iota
	memberClosed
	memberMiss
)

// memberLoop is the member loop of fastMembers in assembly: from
// slots[i] at pos, it writes members to dst (whose spare capacity it uses
// up to room, less moveSlack bytes of slack) while each key is the one
// remembered in its slot, word-compared (keys of at most maxWordKey bytes),
// and each value is a string of ASCII text and valid escapes, a number
// without exponent or a literal, followed by a comma or the closing brace
// with moveSlack bytes of src after it. It returns the slot and position
// of the first member it did not take, dst's new length, and why it
// stopped.
//
// It reads src only below len(src), dst's names within their slack
// (newTarget) and writes dst only below room-1+moveSlack, which must not
// exceed cap(dst).
//
//go:noescape
func memberLoop(src []byte, pos int, dst []byte, room int, slots []keySlot, i int, dropNulls bool) (ni, npos, nlen, status int)

// fastMembers is fastMembersGo with its loop in assembly (unless the
// rewrite asks for the Go loop): keys the loop does not know are learnt
// here, then the loop goes on.
func (r *rewriter) fastMembers(src []byte, pos int, dst []byte, slots []keySlot, i int, record bool) (int, int, []byte, bool) {
	if r.predict == predictGo {
		return r.fastMembersGo(src, pos, dst, slots, i, record)
	}
	room := r.memberRoom(dst)
	for {
		var l, status int
		i, pos, l, status = memberLoop(src, pos, dst, room, slots, i, r.dropNulls)
		dst = dst[:l]
		switch status {
		case memberClosed:
			return i, pos, dst, true
		case memberStop:
			return i, pos, dst, false
		}
		// learnKey refuses keys longer than the loop compares, as it does
		// every key that is not plain: the general path takes them.
		if r.learnKey(&slots[i], pos, record) == 0 {
			return i, pos, dst, false
		}
	}
}
