package mapping

// Typed records and link members: the two Options that let one Rewrite
// walk a Salesforce-style answer whose records nest records of other types
// (Contact.Account, Account.Contacts.records) and carry backend addresses
// (attributes.url, nextRecordsUrl).

// Links hands chosen members to the caller: the value of every member
// whose key is in Keys, at any depth, matched before mapping, goes to
// Value instead of being copied.
type Links struct {
	// Keys are the member names handed to Value. Nil hands over every
	// member whose value is a string, with key "" (a backend whose
	// addresses stand under many names); members so taken are not
	// predicted, which costs speed, not allocations.
	Keys *FieldSet
	// Value appends the member's new value to dst and returns the extended
	// slice, or returns keep false to leave the member out. key is the
	// member's name, raw its value as it came (any JSON value, unchecked
	// beyond its syntax). What Value appends must be one valid JSON value.
	Value func(dst []byte, key string, raw []byte) (out []byte, keep bool, err error)
}

// attributesKey is the member that starts a typed record.
const attributesKey = `"attributes"`

// typedObject writes the object at r.pos with the key map of its type
// when it is a typed record (Options.Types), and with the enclosing map
// otherwise. Objects below record depth are not predicted: their map may
// change from one to the next.
func (r *rewriter) typedObject(depth int, lv level, ks *keySlots) error {
	if lv == levelNested {
		ks = nil
	}
	typ, ok := r.peekType(depth)
	if !ok {
		return r.object(depth, lv, ks)
	}
	saved := r.m
	r.m = r.types(typ)
	if r.m.Len() == 0 {
		r.m = nil
	}
	if ks != nil && ks.m != r.m {
		// Slots remember what a key maps to: learnt under another map,
		// they would rename this record's keys with it.
		ks.record = [maxSlots]keySlot{}
		ks.m = r.m
	}
	err := r.object(depth, lv, ks)
	r.m = saved
	return err
}

// peekType reads, without writing or moving, the type of the object at
// r.pos when its first member is "attributes", an object holding a "type"
// string without escapes. Anything else, malformed input included (the
// writing pass reports it), is not a typed record.
func (r *rewriter) peekType(depth int) ([]byte, bool) {
	start := r.pos
	defer func() { r.pos = start }()
	src := r.src
	r.pos++ // '{'
	r.skipSpace()
	if len(src)-r.pos < len(attributesKey) || string(src[r.pos:r.pos+len(attributesKey)]) != attributesKey {
		return nil, false
	}
	r.pos += len(attributesKey)
	if r.colon() != nil || r.pos >= len(src) || src[r.pos] != '{' {
		return nil, false
	}
	if r.open('}') {
		return nil, false
	}
	for {
		keyStart := r.pos
		escaped, err := r.scanKey()
		if err != nil || r.colon() != nil {
			return nil, false
		}
		valStart := r.pos
		if !escaped && isTypeKey(src[keyStart:]) && valStart < len(src) && src[valStart] == '"' {
			esc, err := r.scanString()
			if err != nil || esc {
				return nil, false
			}
			return src[valStart+1 : r.pos-1], true
		}
		if r.skipValue(depth+1) != nil {
			return nil, false
		}
		if done, err := r.next('}', afterMember); err != nil || done {
			return nil, false
		}
	}
}

// isTypeKey reports whether b starts with the key "type" and its colon
// (spaces allowed between them).
func isTypeKey(b []byte) bool {
	const key = `"type"`
	if len(b) < len(key) || string(b[:len(key)]) != key {
		return false
	}
	for _, c := range b[len(key):] {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// link writes the member whose key decided link: its value goes to
// r.links.Value. key is the key as written in src (with quotes), escaped
// when it has escapes; pos is on the value. It returns the new pos and
// dst, and whether a member was written.
func (r *rewriter) link(src []byte, pos int, dst []byte, depth int, k keyInfo, keyTok []byte, escaped, first bool) (int, []byte, bool, error) {
	r.pos = pos
	if err := r.skipValue(depth); err != nil {
		return 0, nil, false, err
	}
	raw := src[pos:r.pos]
	key := ""
	if r.links.Keys != nil {
		name := keyTok[1 : len(keyTok)-1]
		if escaped {
			name = r.decodeKey(name)
		}
		key = r.links.Keys.list[r.links.Keys.index.find(name)]
	}
	mark := len(dst)
	dst = k.appendName(dst, keyTok, first)
	out, keep, err := r.links.Value(dst, key, raw)
	if err != nil {
		return 0, nil, false, err
	}
	if !keep {
		return r.pos, dst[:mark], false, nil
	}
	return r.pos, out, true, nil
}
