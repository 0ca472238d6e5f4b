package mapping

// Defaults applied by Rewrite to zero Options fields.
const (
	// DefaultMaxDepth is the nesting limit when Options.MaxDepth is 0.
	DefaultMaxDepth = 64
	// DefaultMaxOutput is the output limit in bytes when Options.MaxOutput
	// is 0: the original service's 50000-character serializer limit.
	DefaultMaxOutput = 50000
)

// Options say how Rewrite transforms a document. The zero value copies valid
// JSON in compact form, within the default limits.
type Options struct {
	// Map renames object keys at every depth: a key found in Map is written
	// as its mapped name, any other key is copied unchanged. Nil or empty:
	// keys are left unchanged (and RejectUnknown has no effect). To map an
	// input body back to internal names, pass km.Reverse().
	Map *KeyMap

	// DropNulls removes object members whose value is null, at every depth.
	// Null array elements stay: removing them would shift positions.
	DropNulls bool

	// Select, when not nil, keeps only the listed keys at record depth: the
	// members of a top-level object, or of objects that are direct elements
	// of a top-level array. Keys are matched as they appear in the input,
	// before mapping (internal names on output). Nil keeps every key.
	Select *FieldSet

	// RejectUnknown makes a record-depth key that Map knows on neither side
	// (neither as a key to rename nor as a name it produces) an
	// *UnknownFieldError. It is checked before Select.
	RejectUnknown bool

	// RejectDuplicates makes two members of one object, at any depth, that
	// end with the same name after mapping a *DuplicateFieldError: a key
	// given twice, or an exposed name beside the internal name it maps to.
	// For input bodies; it costs a second pass over src, answers never ask
	// for it.
	RejectDuplicates bool

	// MaxDepth limits nesting of objects and arrays; a top-level object is
	// depth 1. 0 or less means DefaultMaxDepth. Deeper input is ErrTooDeep.
	MaxDepth int

	// MaxOutput limits the bytes Rewrite appends: reaching MaxOutput is
	// ErrTooLarge, found early rather than after writing everything.
	// 0 means DefaultMaxOutput; negative means no limit.
	MaxOutput int

	// Types, when not nil, gives typed records their own map: an object
	// whose first member is "attributes", an object with a "type" string
	// (a Salesforce record, at any depth), is renamed with Types(type)
	// instead of the enclosing map, and so is everything inside it that is
	// not itself a typed record; a nil or empty map leaves it unmapped.
	// Map still renames the untyped objects outside any typed record.
	// typ is only valid during the call. RejectUnknown does not apply.
	Types func(typ []byte) *KeyMap

	// Links, when not nil, hands the members it names to Links.Value, at
	// every depth (see Links).
	Links *Links
}

// level says where a value sits, for the record-depth rules.
type level uint8

const (
	levelTop     level = iota // the document itself
	levelElement              // a direct element of a top-level array
	levelNested               // anything deeper
)

// Rewrite appends the transformed src to dst and returns the extended
// slice. It does not decode src into Go values: numbers keep their exact
// text, strings are copied with their escapes, members keep their order, and
// whitespace is dropped. An object key written with escapes ("Na\u006de")
// is matched by its decoded value and written as the mapped name, or
// verbatim when unmapped.
//
// On error nothing is appended: the returned slice is dst as it was passed,
// so a partial document never reaches a client. Errors are *SyntaxError,
// *UnknownFieldError, *DuplicateFieldError, ErrTooDeep and ErrTooLarge.
//
// Reusing dst (dst[:0] of the last result) makes a steady-state call free of
// allocations. Like append, Rewrite may write anywhere in dst's spare
// capacity (dst[len(dst):cap(dst)]), also when it fails, so that must not
// share memory with src.
func Rewrite(dst, src []byte, opts Options) ([]byte, error) {
	out, _, err := rewriteCount(dst, src, opts, predictOn)
	return out, err
}

// RewriteCount is Rewrite that also returns the number of elements of src
// when it is a top-level array (-1 otherwise), counted in the same pass:
// for a caller that needs the count of a list (its page) without a pass of
// its own over it.
func RewriteCount(dst, src []byte, opts Options) ([]byte, int, error) {
	return rewriteCount(dst, src, opts, predictOn)
}

// prediction says whether the rewriter remembers keys from record to
// record (see predict.go), and which member loop takes the members it
// knows.
type prediction uint8

const (
	// predictOff takes every member by the general path.
	predictOff prediction = iota
	// predictOn is what Rewrite does: the member loop in assembly where
	// there is one (memberLoop), else in Go.
	predictOn
	// predictGo takes the member loop in Go (fastMembersGo) everywhere, so
	// that tests can compare the two loops on the machines that have both.
	predictGo
)

// rewrite is Rewrite with key prediction switchable, so tests can check
// that predicting keys never changes a result.
func rewrite(dst, src []byte, opts Options, predict prediction) ([]byte, error) {
	out, _, err := rewriteCount(dst, src, opts, predict)
	return out, err
}

// rewriteCount is RewriteCount with key prediction switchable.
func rewriteCount(dst, src []byte, opts Options, predict prediction) ([]byte, int, error) {
	r := rewriter{
		src:       src,
		dst:       dst,
		start:     len(dst),
		maxDepth:  opts.MaxDepth,
		limit:     opts.MaxOutput,
		m:         opts.Map,
		sel:       opts.Select,
		dropNulls: opts.DropNulls,
	}
	if r.maxDepth <= 0 {
		r.maxDepth = DefaultMaxDepth
	}
	if r.limit == 0 {
		r.limit = DefaultMaxOutput
	}
	if r.m.Len() == 0 {
		r.m = nil
	}
	r.types, r.links = opts.Types, opts.Links
	r.reject = opts.RejectUnknown && r.m != nil && r.types == nil
	r.predict = predict

	r.skipSpace()
	array := r.pos < len(r.src) && r.src[r.pos] == '['
	if err := r.value(0, levelTop, nil); err != nil {
		return dst, 0, err
	}
	r.skipSpace()
	if r.pos < len(r.src) {
		return dst, 0, r.syntaxError(r.pos, "invalid character "+quoteChar(r.src[r.pos])+" after top-level value")
	}
	if opts.RejectDuplicates {
		if err := uniqueKeys(src, r.m, r.maxDepth); err != nil {
			return dst, 0, err
		}
	}
	if !array {
		return r.dst, -1, nil
	}
	return r.dst, r.count, nil
}

// rewriter is the state of one Rewrite call; it lives on the stack.
type rewriter struct {
	src       []byte
	pos       int
	dst       []byte
	start     int
	limit     int
	maxDepth  int
	m         *KeyMap
	sel       *FieldSet
	dropNulls bool
	reject    bool
	predict   prediction
	// count counts the top-level array's elements.
	count int
	types func([]byte) *KeyMap
	links *Links
	// keyBuf holds an escaped key once decoded; field names fit, so
	// decoding does not allocate.
	keyBuf [128]byte
}

// value writes the value at r.pos. depth is the number of containers
// enclosing it; ks, when not nil, are the keys remembered for the records
// of a top-level array (see predict.go).
func (r *rewriter) value(depth int, lv level, ks *keySlots) error {
	if r.pos >= len(r.src) {
		return r.syntaxError(r.pos, "unexpected end of JSON input")
	}
	start := r.pos
	switch c := r.src[r.pos]; {
	case c == '{':
		if r.types != nil {
			return r.typedObject(depth+1, lv, ks)
		}
		return r.object(depth+1, lv, ks)
	case c == '[':
		return r.array(depth+1, lv, ks)
	case c == '"':
		if _, err := r.scanString(); err != nil {
			return err
		}
	default:
		if err := r.scanScalar(); err != nil {
			return err
		}
	}
	return r.copyToken(start)
}

// copyToken writes the token scanned from start to r.pos. The limit is
// checked before copying, so a huge string is refused without being
// written.
func (r *rewriter) copyToken(start int) error {
	if r.limit >= 0 && len(r.dst)-r.start+(r.pos-start) >= r.limit {
		return ErrTooLarge
	}
	r.dst = append(r.dst, r.src[start:r.pos]...)
	return nil
}

func (r *rewriter) array(depth int, lv level, ks *keySlots) error {
	if depth > r.maxDepth {
		return ErrTooDeep
	}
	if lv == levelTop && r.predict != predictOff {
		return r.recordArray(depth)
	}
	return r.elements(depth, lv, ks)
}

// recordArray writes a top-level array, whose elements are records: the
// only place keys repeat from one object to the next, so the only one
// that pays for remembering them. The slots live in this frame, on the
// stack, and are cleared once per document.
func (r *rewriter) recordArray(depth int) error {
	var ks keySlots
	return r.elements(depth, levelTop, &ks)
}

// elements writes the array at r.pos, of nesting level lv.
func (r *rewriter) elements(depth int, lv level, ks *keySlots) error {
	elem := levelNested
	if lv == levelTop {
		elem = levelElement
	}
	r.dst = append(r.dst, '[')
	if r.open(']') {
		r.dst = append(r.dst, ']')
		return r.checkSize()
	}
	for {
		if lv == levelTop {
			r.count++
		}
		if err := r.value(depth, elem, ks); err != nil {
			return err
		}
		done, err := r.next(']', afterElement)
		if err != nil {
			return err
		}
		if done {
			r.dst = append(r.dst, ']')
			return r.checkSize()
		}
		r.dst = append(r.dst, ',')
	}
}

func (r *rewriter) checkSize() error {
	if r.limit >= 0 && len(r.dst)-r.start >= r.limit {
		return ErrTooLarge
	}
	return nil
}
