package mapping

// Arrays of records repeat the same keys in the same order. Within a
// top-level array the rewriter remembers, per member position, the raw key
// of the last record and what was decided for it; when the next record has
// the same bytes at that position the key is known by a few word compares
// instead of a scan, a lookup and the Select and RejectUnknown checks. A
// miss costs those compares and falls back to the full path, which
// refreshes the slot.

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
	// comma, JSON string, colon. Nil when the key is unmapped and copied
	// as it is in the input. Shared with the KeyMap: never written.
	member []byte
	// skip is set when Select leaves the member out.
	skip bool
	// link is set when Options.Links takes the member: such a key is never
	// remembered, so the member loops never meet it.
	link bool
}

// appendName appends what comes before a member's value: a comma unless
// the member is the object's first, then the mapped name, or keyTok (the
// key as it came, quotes included) when the key is kept, and a colon.
func (k *keyInfo) appendName(dst, keyTok []byte, first bool) []byte {
	if k.member != nil {
		m := k.member
		if first {
			m = m[1:]
		}
		return append(dst, m...)
	}
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, keyTok...)
	return append(dst, ':')
}

// keySlots are the keys remembered for the records of one top-level
// array: the records' own keys, and apart from them the keys of objects
// nested in records (their attributes), which carry no Select or
// RejectUnknown decision.
type keySlots struct {
	record [maxSlots]keySlot
	nested [maxNestedSlots]keySlot
	// m is the map the record slots were learnt under, when
	// Options.Types changes it from record to record.
	m *KeyMap
}

// keySlot is a key remembered at one member position: src[start:end] is
// the key with its quotes. Only keys without escapes are remembered, so
// equal bytes mean the same, valid, string token.
//
// Keys of up to maxWordKey bytes are compared as words, without a call:
// the key at pos is the remembered one when
//
//	load64(src, pos)^head)&mask == 0 && (n <= 8 || load64(src, pos+n-8) == tail) && (n <= 16 || load64(src, pos+8) == mid)
//
// for its length n: head holds the first eight bytes (masked by mask when
// shorter), mid the next eight and tail the last eight.
type keySlot struct {
	start, end      int
	head, mid, tail uint64
	mask            uint64
	info            keyInfo
}

// maxWordKey is the longest key, quotes included, compared as words.
const maxWordKey = 24

func (s *keySlot) remember(src []byte, start, end int, info keyInfo) {
	n := end - start
	s.start, s.end, s.info = start, end, info
	s.mask, s.mid, s.tail = ^uint64(0), 0, 0
	if n < 8 {
		s.mask = 1<<(8*n) - 1
	}
	if len(src)-start >= 8 {
		s.head = load64(src, start) & s.mask
	} else {
		s.head = 0
		for j := n - 1; j >= 0; j-- {
			s.head = s.head<<8 | uint64(src[start+j])
		}
	}
	if n > 8 {
		s.tail = load64(src, end-8)
	}
	if n > 16 {
		s.mid = load64(src, start+8)
	}
}

// matchBytes returns the length of the remembered key if src at pos
// starts with it, else 0, comparing bytes: for keys longer than
// maxWordKey and near the end of the input, where the member loops'
// word compares do not apply. An empty slot matches nothing.
func (s *keySlot) matchBytes(src []byte, pos int) int {
	n := s.end - s.start
	if n == 0 || n > len(src)-pos || string(src[pos:pos+n]) != string(src[s.start:s.end]) {
		return 0
	}
	return n
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
	// A key the map renames is known: RejectUnknown then needs no second
	// lookup.
	var info keyInfo
	mapped := -1
	if r.m != nil {
		if mapped = r.m.index.find(key); mapped >= 0 {
			info.member = r.m.targets[mapped].member
		}
	}
	if r.links != nil && (r.links.Keys == nil || r.links.Keys.hasKey(key)) {
		info.link = true
	}
	if record {
		if r.reject && mapped < 0 && r.m.rev.index.find(key) < 0 {
			return keyInfo{}, &UnknownFieldError{Field: string(key)}
		}
		if r.sel != nil && !r.sel.hasKey(key) {
			info = keyInfo{skip: true}
		}
	}
	return info, nil
}
