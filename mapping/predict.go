package mapping

// Arrays of records repeat the same keys in the same order. The rewriter
// remembers, per member position, the raw key of the last record and what
// was decided for it; when the next record has the same bytes at that
// position the key is known by one compare instead of a scan, a map lookup
// and the Select and RejectUnknown checks. A miss costs one short compare
// and falls back to the full path, which refreshes the slot.

// maxSlots caps the member positions remembered per record; members past
// it always take the full path. Account records have about 25 keys.
const maxSlots = 64

// maxNestedSlots caps the member positions remembered for objects below
// record depth, which are usually small (a record's attributes).
const maxNestedSlots = 8

// keyInfo is what a member key decides, the same for every occurrence of
// the key at the same level.
type keyInfo struct {
	// member is the mapped name as written after a previous member:
	// comma, JSON string, colon. "" when the key is unmapped and copied
	// as it is in the input.
	member string
	// skip is set when Select leaves the member out.
	skip bool
}

// keySlot is a key remembered at one member position: src[start:end] is
// the key with its quotes. Only keys without escapes are remembered, so
// equal bytes mean the same, valid, string token.
type keySlot struct {
	start, end int
	info       keyInfo
}

// predictKey reports whether the key at r.pos is the one remembered in s,
// and if so steps over it and returns its decision.
func (r *rewriter) predictKey(s *keySlot) (keyInfo, bool) {
	n := s.end - s.start
	if n == 0 || n > len(r.src)-r.pos || string(r.src[r.pos:r.pos+n]) != string(r.src[s.start:s.end]) {
		return keyInfo{}, false
	}
	r.pos += n
	return s.info, true
}

// decide says what happens to a member whose key is raw (the text between
// the quotes, escaped when it has escapes): rejected (RejectUnknown), left
// out (Select) or written under which name. record says whether the key is
// at record depth, where Select and RejectUnknown apply.
func (r *rewriter) decide(raw []byte, escaped, record bool) (keyInfo, error) {
	key := raw
	if escaped {
		key = r.decodeKey(raw)
	}
	var info keyInfo
	if record {
		if r.reject && !r.m.known(key) {
			return keyInfo{}, &UnknownFieldError{Field: string(key)}
		}
		info.skip = r.sel != nil && !r.sel.hasKey(key)
	}
	if !info.skip {
		if t, ok := r.lookup(key); ok {
			info.member = t.member
		}
	}
	return info, nil
}
