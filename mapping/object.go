package mapping

// object writes the object at r.pos. depth counts it; lv says whether it
// is a record (top-level object or element of a top-level array).
//
// This is the gateway's hottest loop: compact input, keys that repeat from
// record to record and string values take paths without calls where the
// general ones (colon, value, next) would do the same work.
func (r *rewriter) object(depth int, lv level) error {
	if depth > r.maxDepth {
		return ErrTooDeep
	}
	record := lv != levelNested
	// Record keys and nested keys are remembered apart: only record keys
	// carry the Select and RejectUnknown decisions, and the nested objects
	// of a record (its attributes) repeat just as the records do.
	var slots []keySlot
	if r.predict {
		slots = r.nested[:]
		if record {
			slots = r.slots[:]
		}
	}
	r.dst = append(r.dst, '{')
	if r.open('}') {
		r.dst = append(r.dst, '}')
		return r.checkSize()
	}
	first := true
	for i := 0; ; i++ {
		keyStart := r.pos
		k, hit := keyInfo{}, false
		if i < len(slots) {
			k, hit = r.predictKey(&slots[i])
		}
		escaped := false
		if !hit {
			var err error
			if escaped, err = r.scanKey(); err != nil {
				return err
			}
		}
		keyEnd := r.pos
		if keyEnd < len(r.src) && r.src[keyEnd] == ':' {
			r.pos++
			r.skipSpace()
		} else if err := r.colon(); err != nil {
			return err
		}
		if !hit {
			var err error
			if k, err = r.decide(r.src[keyStart+1:keyEnd-1], escaped, record); err != nil {
				return err
			}
			if i < len(slots) && !escaped {
				slots[i] = keySlot{start: keyStart, end: keyEnd, info: k}
			}
		}

		if k.skip || r.dropNulls && r.pos < len(r.src) && r.src[r.pos] == 'n' {
			if err := r.skipValue(depth); err != nil {
				return err
			}
		} else {
			if k.member != "" {
				m := k.member
				if first {
					m = m[1:]
				}
				r.dst = append(r.dst, m...)
			} else {
				if !first {
					r.dst = append(r.dst, ',')
				}
				r.dst = append(r.dst, r.src[keyStart:keyEnd]...)
				r.dst = append(r.dst, ':')
			}
			first = false
			if start := r.pos; start < len(r.src) && r.src[start] == '"' {
				if _, err := r.scanString(); err != nil {
					return err
				}
				if err := r.copyToken(start); err != nil {
					return err
				}
			} else if err := r.value(depth, levelNested); err != nil {
				return err
			}
		}

		if r.pos < len(r.src) && r.src[r.pos] == ',' {
			r.pos++
			r.skipSpace()
			continue
		}
		done, err := r.next('}', afterMember)
		if err != nil {
			return err
		}
		if done {
			r.dst = append(r.dst, '}')
			return r.checkSize()
		}
	}
}
