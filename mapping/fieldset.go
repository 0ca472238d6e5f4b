package mapping

import "slices"

// FieldSet is an immutable set of field names, the Options.Select of a
// route. Build it once; it is safe for concurrent use.
type FieldSet struct {
	names map[string]struct{}
	list  []string
	index nameIndex
}

// NewFieldSet returns the set of names. Repeats are kept once.
func NewFieldSet(names ...string) *FieldSet {
	s := &FieldSet{names: make(map[string]struct{}, len(names))}
	for _, n := range names {
		if _, dup := s.names[n]; dup {
			continue
		}
		s.names[n] = struct{}{}
		s.list = append(s.list, n)
	}
	s.index = newNameIndex(s.list)
	return s
}

// Has reports whether name is in the set; false for a nil set.
func (s *FieldSet) Has(name string) bool {
	if s == nil {
		return false
	}
	_, ok := s.names[name]
	return ok
}

// Names returns a copy of the names in the order given to NewFieldSet.
func (s *FieldSet) Names() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.list)
}

func (s *FieldSet) hasKey(key []byte) bool {
	return s.index.find(key) >= 0
}
