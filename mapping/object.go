package mapping

// object writes the object at r.pos. depth counts it; lv says whether it
// is a record (top-level object or element of a top-level array); ks, when
// not nil, are the keys remembered from the previous record.
//
// This is the gateway's hottest loop. It keeps the input position and the
// output in locals (written back to r around every call that uses them),
// and compact input, keys repeated from the last record, and string and
// number values take paths without calls where the general ones (colon,
// value, next) would do the same work.
func (r *rewriter) object(depth int, lv level, ks *keySlots) error {
	if depth > r.maxDepth {
		return ErrTooDeep
	}
	record := lv != levelNested
	// Record keys and nested keys are remembered apart: only record keys
	// carry the Select and RejectUnknown decisions, and the nested objects
	// of a record (its attributes) repeat just as the records do.
	var slots []keySlot
	if ks != nil {
		slots = ks.nested[:]
		if record {
			slots = ks.record[:]
		}
	}
	r.dst = append(r.dst, '{')
	if r.open('}') {
		r.dst = append(r.dst, '}')
		return r.checkSize()
	}
	src, pos, dst := r.src, r.pos, r.dst
	first := true
	for i := 0; ; i++ {
		if i < len(slots) && (!first || !record) {
			// fastMembers starts each member with a comma. Before the
			// first, the last byte written is the object's brace: the
			// comma is written over it, and the brace put back. Not for
			// a record's first member, which in Salesforce answers is the
			// attributes object fastMembers would only refuse.
			brace := len(dst) - 1
			if first {
				dst = dst[:brace]
			}
			var closed bool
			i, pos, dst, closed = r.fastMembers(src, pos, dst, slots, i, record)
			if first {
				if len(dst) == brace {
					dst = dst[:brace+1]
				} else {
					dst[brace], first = '{', false
				}
			}
			if closed {
				r.pos = pos + 1
				r.dst = append(dst, '}')
				return r.checkSize()
			}
			// It stops after a comma without looking past it.
			if pos < len(src) && src[pos] <= ' ' {
				r.pos = pos
				r.skipSpace()
				pos = r.pos
			}
		}
		keyStart := pos
		var k keyInfo
		hit := false
		if i < len(slots) {
			// The word compare of keySlot, written out: a call per
			// member would cost more than the compare.
			s := &slots[i]
			n := s.end - s.start
			if n > maxWordKey || len(src)-pos < maxWordKey {
				n = s.matchBytes(src, pos)
			} else if (load64(src, pos)^s.head)&s.mask != 0 ||
				n > 8 && load64(src, pos+n-8) != s.tail ||
				n > 16 && load64(src, pos+8) != s.mid {
				n = 0
			}
			if n > 0 {
				k, hit = s.info, true
				pos += n
			}
		}
		escaped := false
		if !hit {
			r.pos = pos
			var err error
			if escaped, err = r.scanKey(); err != nil {
				return err
			}
			pos = r.pos
		}
		keyEnd := pos
		if pos < len(src) && src[pos] == ':' {
			pos++
			if pos < len(src) && src[pos] <= ' ' {
				r.pos = pos
				r.skipSpace()
				pos = r.pos
			}
		} else {
			r.pos = pos
			if err := r.colon(); err != nil {
				return err
			}
			pos = r.pos
		}
		if !hit {
			var err error
			if k, err = r.decide(src[keyStart+1:keyEnd-1], escaped, record); err != nil {
				return err
			}
			if i < len(slots) && !escaped && !k.link {
				slots[i].remember(src, keyStart, keyEnd, k)
			}
		}

		if k.link && !k.skip && (r.links.Keys != nil || pos < len(src) && src[pos] == '"') {
			var wrote bool
			var err error
			if pos, dst, wrote, err = r.link(src, pos, dst, depth, k, src[keyStart:keyEnd], escaped, first); err != nil {
				return err
			}
			first = first && !wrote
		} else if k.skip || r.dropNulls && pos < len(src) && src[pos] == 'n' {
			r.pos = pos
			if err := r.skipValue(depth); err != nil {
				return err
			}
			pos = r.pos
		} else {
			dst = k.appendName(dst, src[keyStart:keyEnd], first)
			first = false
			end := -1
			if pos < len(src) {
				switch c := src[pos]; {
				case c == '"':
					if end = skipPlain(src, pos+1); end < len(src) && src[end] == '"' {
						end++
					} else {
						r.pos = pos
						if _, err := r.scanStringRest(end, false); err != nil {
							return err
						}
						end = r.pos
					}
				case c == '-' || c-'0' < 10:
					r.pos = pos
					if err := r.scanNumber(); err != nil {
						return err
					}
					end = r.pos
				}
			}
			if end >= 0 {
				// As in copyToken: checked before copying.
				if r.limit >= 0 && len(dst)-r.start+(end-pos) >= r.limit {
					return ErrTooLarge
				}
				dst = append(dst, src[pos:end]...)
				pos = end
			} else {
				r.pos, r.dst = pos, dst
				if err := r.value(depth, levelNested, ks); err != nil {
					return err
				}
				pos, dst = r.pos, r.dst
			}
		}

		if pos < len(src) && src[pos] == ',' {
			pos++
			if pos < len(src) && src[pos] <= ' ' {
				r.pos = pos
				r.skipSpace()
				pos = r.pos
			}
			continue
		}
		r.pos = pos
		done, err := r.next('}', afterMember)
		if err != nil {
			return err
		}
		if done {
			r.dst = append(dst, '}')
			return r.checkSize()
		}
		pos = r.pos
	}
}
