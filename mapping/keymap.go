package mapping

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrInvalidName is returned (wrapped) by NewKeyMap and DeriveKeyMap when a
// name on either side is empty or not valid UTF-8.
var ErrInvalidName = errors.New("mapping: field name empty or not valid UTF-8")

// CollisionError reports an exposed name that cannot be reversed to a single
// internal name: two internal names map to it, or it is itself the internal
// name of another entry (so an input key with that name would mean two
// things). Internal lists every internal name involved, sorted.
type CollisionError struct {
	Exposed  string
	Internal []string
}

func (e *CollisionError) Error() string {
	quoted := make([]string, len(e.Internal))
	for i, n := range e.Internal {
		quoted[i] = strconv.Quote(n)
	}
	return fmt.Sprintf("mapping: exposed name %q is ambiguous between internal names %s",
		e.Exposed, strings.Join(quoted, ", "))
}

// target is the value side of one direction of a KeyMap; member is the
// name already encoded as Rewrite writes it after a previous member (comma,
// JSON string, colon), so it appends it without escaping work per key.
type target struct {
	name   string
	member []byte
}

// newTarget encodes name. The member bytes are followed by moveSlack bytes
// of spare capacity: Rewrite copies them in blocks.
func newTarget(name string) target {
	m := append([]byte{','}, AppendString(nil, name)...)
	m = append(m, ':')
	return target{name: name, member: append(make([]byte, 0, len(m)+moveSlack), m...)}
}

// KeyMap is a reversible map from internal field names to exposed names.
// It is immutable once built and safe for concurrent use; build it once
// (at configuration load or after a describe) and share it.
//
// A KeyMap never maps two internal names to one exposed name, and no exposed
// name is another entry's internal name, so Reverse is exact. An entry may
// map a name to itself.
type KeyMap struct {
	fwd   map[string]target
	order []string
	rev   *KeyMap
	// index finds a key in order without hashing all of it; targets are
	// the targets of order, position for position. Rewrite uses them.
	index   nameIndex
	targets []target
}

// NewKeyMap builds a KeyMap from internal->exposed pairs. Its Fields are
// sorted. The error joins every problem found: a *CollisionError per
// ambiguous exposed name and ErrInvalidName (wrapped) per empty or
// non-UTF-8 name. A nil or empty map gives an empty KeyMap, which Rewrite
// treats as "no mapping".
func NewKeyMap(internalToExposed map[string]string) (*KeyMap, error) {
	order := make([]string, 0, len(internalToExposed))
	for internal := range internalToExposed {
		order = append(order, internal)
	}
	slices.Sort(order)
	return build(order, internalToExposed)
}

// DeriveKeyMap maps each field to Derive(field). Fields keeps the order of
// fields (a repeated field is kept once, at its first position). Errors are
// those of NewKeyMap; a field whose derived name is empty is ErrInvalidName.
func DeriveKeyMap(fields []string) (*KeyMap, error) {
	pairs := make(map[string]string, len(fields))
	order := make([]string, 0, len(fields))
	for _, f := range fields {
		if _, dup := pairs[f]; dup {
			continue
		}
		pairs[f] = Derive(f)
		order = append(order, f)
	}
	return build(order, pairs)
}

func build(order []string, pairs map[string]string) (*KeyMap, error) {
	var errs []error
	claims := make(map[string][]string, len(pairs))
	for _, internal := range order {
		exposed := pairs[internal]
		switch {
		case !validName(internal):
			errs = append(errs, fmt.Errorf("internal name %q: %w", internal, ErrInvalidName))
			continue
		case !validName(exposed):
			errs = append(errs, fmt.Errorf("exposed name %q of %q: %w", exposed, internal, ErrInvalidName))
			continue
		}
		claims[exposed] = append(claims[exposed], internal)
	}
	exposedNames := make([]string, 0, len(claims))
	for exposed := range claims {
		exposedNames = append(exposedNames, exposed)
	}
	slices.Sort(exposedNames)
	for _, exposed := range exposedNames {
		internals := claims[exposed]
		if other, ok := pairs[exposed]; ok && other != exposed {
			internals = append(internals, exposed)
		}
		if len(internals) > 1 {
			internals = slices.Clone(internals)
			slices.Sort(internals)
			errs = append(errs, &CollisionError{Exposed: exposed, Internal: internals})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	km := &KeyMap{fwd: make(map[string]target, len(order)), order: order}
	rev := &KeyMap{fwd: make(map[string]target, len(order)), order: make([]string, 0, len(order)), rev: km}
	km.rev = rev
	for _, internal := range order {
		exposed := pairs[internal]
		km.fwd[internal] = newTarget(exposed)
		rev.fwd[exposed] = newTarget(internal)
		rev.order = append(rev.order, exposed)
	}
	for _, m := range []*KeyMap{km, rev} {
		m.index = newNameIndex(m.order)
		m.targets = make([]target, len(m.order))
		for i, name := range m.order {
			m.targets[i] = m.fwd[name]
		}
	}
	return km, nil
}

// Exposed returns the exposed name of an internal name.
func (m *KeyMap) Exposed(internal string) (string, bool) {
	if m == nil {
		return "", false
	}
	t, ok := m.fwd[internal]
	return t.name, ok
}

// Internal returns the internal name of an exposed name.
func (m *KeyMap) Internal(exposed string) (string, bool) {
	if m == nil {
		return "", false
	}
	return m.rev.Exposed(exposed)
}

// Reverse returns the exposed->internal map, built with m and never rebuilt;
// m.Reverse().Reverse() == m. Pass it as Options.Map to map an input body
// back to internal names. The reverse of a nil KeyMap is nil.
func (m *KeyMap) Reverse() *KeyMap {
	if m == nil {
		return nil
	}
	return m.rev
}

// Pairs returns a copy of the map, internal->exposed.
func (m *KeyMap) Pairs() map[string]string {
	if m == nil {
		return map[string]string{}
	}
	out := make(map[string]string, len(m.fwd))
	for k, t := range m.fwd {
		out[k] = t.name
	}
	return out
}

// Len returns the number of entries; 0 for a nil KeyMap.
func (m *KeyMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.fwd)
}

// Fields returns a copy of the internal names: in the order given to
// DeriveKeyMap, sorted for NewKeyMap. For a Reverse map they are the exposed
// names, in the same order as the forward map's Fields.
func (m *KeyMap) Fields() []string {
	if m == nil {
		return nil
	}
	return slices.Clone(m.order)
}

func validName(s string) bool {
	return s != "" && utf8.ValidString(s)
}
