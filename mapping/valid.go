package mapping

// maxValidDepth is the nesting Valid accepts, encoding/json's own limit.
const maxValidDepth = 10000

// Valid reports whether src is exactly one JSON value, surrounding
// whitespace allowed. It is the check of json.Valid at a fraction of its
// cost (no per-byte state machine), for adapters that must refuse a
// malformed backend answer before handing it on. It is stricter in one
// way: invalid UTF-8 inside a string makes src invalid, as it does for
// Rewrite, so what Valid accepts Rewrite can always write.
func Valid(src []byte) bool {
	r := rewriter{src: src, maxDepth: maxValidDepth}
	r.skipSpace()
	if r.skipValue(0) != nil {
		return false
	}
	r.skipSpace()
	return r.pos == len(r.src)
}
