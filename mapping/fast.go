package mapping

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// fastMembersGo writes, from member i at pos, the members of a record that
// need no decision beyond the one remembered for their key: the key is the
// one remembered at its position, the input is compact around it, the
// value is a string of ASCII text and valid escapes, a number without
// exponent, or a literal, and a comma or the object's closing brace
// follows. It stops before the first member that is anything else, which
// object then writes by the general path, and returns the updated i, pos
// and dst, and whether it stopped at the closing brace (pos on it) after
// writing the last member.
//
// Each member written here starts with a comma. A member whose value would
// reach the output limit is left to the general path to refuse; so is any
// error.
//
// A key other than the remembered one is learnt (learnKey) when it is
// plain, compact and at most maxWordKey bytes long, so the first record
// takes this path too; a longer key is left to the general path, as the
// assembly loop leaves it.
//
// It has no calls on its common path and was written with few live values,
// though the compiler still keeps some of them on the stack: this loop is
// most of Rewrite's time on record arrays. On amd64 fastMembers runs the same loop in assembly (memberLoop) instead;
// this one serves other architectures and -tags purego builds.
func (r *rewriter) fastMembersGo(src []byte, pos int, dst []byte, slots []keySlot, i int, record bool) (int, int, []byte, bool) {
	// Members are written with block moves that read and write up to 32
	// bytes past the ends of the runs (see moveSlack): src (by a check
	// below) and the names have the room, and so must dst's spare
	// capacity, by room (the bytes written past the new length are spare
	// capacity, which append would overwrite as well). A member short of
	// room, like one that reaches the output limit, is left to the general
	// path.
	dropNulls, room := r.dropNulls, r.memberRoom(dst)
	for ; i < len(slots); i++ {
		// The margin lets the word loads of the key and the first bytes
		// of the value go without length checks of their own.
		if len(src)-pos < maxWordKey+16 {
			return i, pos, dst, false
		}
		s := &slots[i]
		n := s.end - s.start
		if n == 0 || n > maxWordKey ||
			(load64(src, pos)^s.head)&s.mask != 0 ||
			n > 8 && load64(src, pos+n-8) != s.tail ||
			n > 16 && load64(src, pos+8) != s.mid ||
			src[pos+n] != ':' {
			if n = r.learnKey(s, pos, record); n == 0 {
				return i, pos, dst, false
			}
		}
		v := pos + n + 1
		end := -1
		switch c := src[v]; {
		case c == '"':
			j := v + 1
			for j+8 <= len(src) {
				m := specialBytes(load64(src, j))
				if m == 0 {
					j += 8
					continue
				}
				j += bits.TrailingZeros64(m) >> 3
				if src[j] == '"' {
					end = j + 1
					break
				}
				if e := escapeEnd(src, j); e > 0 {
					j = e
					continue
				}
				break // non-ASCII or invalid: the general path decides
			}
		case c == 'n':
			if binary.LittleEndian.Uint32(src[v:v+4:v+4]) == nullWord {
				end = v + 4
			}
		default:
			end = scanPlainScalar(src, v)
		}
		if end < 0 || end >= len(src) || src[end] != ',' && src[end] != '}' {
			return i, pos, dst, false
		}
		if !s.info.skip && !(dropNulls && src[v] == 'n') {
			// Mapped: the name, comma first, then the value. Unmapped: a
			// comma, then key and value as they are. hdr counts the bytes
			// before src[b:end]; the general path counts them too in the
			// output it checks against the limit.
			p, b, hdr := s.info.member, v, len(s.info.member)
			if p == nil {
				b, hdr = pos, 1
			}
			n, l := end-b, len(dst)
			if l+hdr+n >= room || len(src)-end < moveSlack {
				return i, pos, dst, false
			}
			d := dst[:cap(dst)]
			if p != nil {
				move16(d, l, p, 0)
				if hdr > 16 {
					move16(d, l+16, p, 16)
					if hdr > 32 {
						copy(d[l+32:l+hdr], p[32:])
					}
				}
			} else {
				d[l] = ','
			}
			o := l + hdr
			move16(d, o, src, b)
			if n > 16 {
				move16(d, o+16, src, b+16)
				if n > 32 {
					copy(d[o+32:o+n], src[b+32:end])
				}
			}
			dst = d[:o+n]
		}
		if src[end] == '}' {
			return i + 1, end, dst, true
		}
		pos = end + 1
	}
	return i, pos, dst, false
}

// escapeEnd returns the end of the escape sequence at j (on a backslash)
// when it is valid, else 0 (also when j is not on a backslash).
func escapeEnd(src []byte, j int) int {
	if src[j] != '\\' || j+1 >= len(src) {
		return 0
	}
	switch src[j+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return j + 2
	case 'u':
		if j+6 <= len(src) && isHex(src[j+2]) && isHex(src[j+3]) && isHex(src[j+4]) && isHex(src[j+5]) {
			return j + 6
		}
	}
	return 0
}

func isHex(c byte) bool {
	return c-'0' < 10 || (c|0x20)-'a' < 6
}

// nullWord is "null" read as a little-endian word.
const nullWord = 'n' | 'u'<<8 | 'l'<<16 | 'l'<<24

// scanPlainScalar returns the end of the number or the true or false
// literal at v (v < len(src)) when the member loop takes it whole: a number
// without exponent. Otherwise, or when the value is not valid, it returns
// -1 and the general path scans it (and reports the error, if any). The
// caller checks the byte at the end, so a number or a literal followed by
// more token text is refused there.
func scanPlainScalar(src []byte, v int) int {
	switch c := src[v]; {
	case c == '-' || c-'0' < 10:
		i := v
		if c == '-' {
			i++
		}
		d := skipDigits(src, i)
		if d == i || src[i] == '0' && d > i+1 {
			return -1
		}
		if d < len(src) && src[d] == '.' {
			f := skipDigits(src, d+1)
			if f == d+1 {
				return -1
			}
			d = f
		}
		return d
	case c == 't':
		return literalEnd(src, v, "true")
	case c == 'f':
		return literalEnd(src, v, "false")
	}
	return -1
}

func literalEnd(src []byte, v int, lit string) int {
	if len(src)-v < len(lit) || string(src[v:v+len(lit)]) != lit {
		return -1
	}
	return v + len(lit)
}

// memberRoom is the output length the member loops stay below: the output
// limit's, or dst's capacity less the block moves' slack.
func (r *rewriter) memberRoom(dst []byte) int {
	return min(r.outputStop(), cap(dst)-moveSlack+1)
}

// outputStop is the output length at which the next token would make
// ErrTooLarge: the test copyToken makes, solved for the length.
func (r *rewriter) outputStop() int {
	if r.limit < 0 {
		return math.MaxInt
	}
	return r.start + r.limit
}

// learnKey decides the key at pos and remembers it in s when it is plain
// (no escapes, ASCII), at most maxWordKey bytes long with its quotes, and
// a colon follows at once, and returns its length with the quotes;
// otherwise, or when the key is refused, it returns 0 and the general path
// takes the member (and reports the error, if any). The bound is the
// member loops' contract: both compare keys as words only up to
// maxWordKey, and the margin they check before a member (maxWordKey+16
// bytes of src) covers the key, its colon and the value's first bytes
// only for such keys.
func (r *rewriter) learnKey(s *keySlot, pos int, record bool) int {
	src := r.src
	if src[pos] != '"' {
		return 0
	}
	e := skipPlain(src, pos+1)
	if e+1 >= len(src) || src[e] != '"' || src[e+1] != ':' || e+1-pos > maxWordKey {
		return 0
	}
	info, err := r.decide(src[pos+1:e], false, record)
	if err != nil || info.link {
		return 0
	}
	s.remember(src, pos, e+1, info)
	return e + 1 - pos
}
