package mapping

import "fmt"

// DuplicateFieldError reports two members of one object that name the same
// field once mapped (Options.RejectDuplicates): one key given twice, or an
// exposed name beside the name it maps to ({"name": ..., "Name": ...} with
// name -> Name), which a backend would read as one field holding whichever
// value it keeps. First and Second are the two keys as decoded, in input
// order; Field is the name both become. For an input body the gateway
// answers it with a 400 naming both keys.
type DuplicateFieldError struct {
	First, Second, Field string
}

func (e *DuplicateFieldError) Error() string {
	if e.First == e.Second {
		return fmt.Sprintf("mapping: field %q given twice", e.First)
	}
	return fmt.Sprintf("mapping: fields %q and %q both name %q", e.First, e.Second, e.Field)
}

// smallObject is the member count up to which uniqueObject compares names
// in a slice; a larger object gets a map.
const smallObject = 16

// uniqueKeys reports the first object of src, at any depth, with two
// members that m maps to the same name (keys m does not rename keep their
// own). src has been rewritten with the same depth limit, so it is valid
// JSON within it. This is a pass of its own rather than a part of Rewrite's
// member loops: only input bodies ask for it, and the answers Rewrite
// writes on the hot path pay nothing for it.
func uniqueKeys(src []byte, m *KeyMap, maxDepth int) error {
	r := rewriter{src: src, maxDepth: maxDepth, m: m}
	r.skipSpace()
	return r.uniqueValue(0)
}

func (r *rewriter) uniqueValue(depth int) error {
	switch r.src[r.pos] {
	case '{':
		return r.uniqueObject(depth + 1)
	case '[':
		if r.open(']') {
			return nil
		}
		for {
			if err := r.uniqueValue(depth + 1); err != nil {
				return err
			}
			if done, err := r.next(']', afterElement); err != nil || done {
				return err
			}
		}
	}
	return r.skipValue(depth)
}

func (r *rewriter) uniqueObject(depth int) error {
	if r.open('}') {
		return nil
	}
	type member struct{ key, name string }
	var small []member
	var large map[string]string // name -> key
	for {
		start := r.pos
		escaped, err := r.scanKey()
		if err != nil {
			return err
		}
		raw := r.src[start+1 : r.pos-1]
		if escaped {
			raw = r.decodeKey(raw)
		}
		key := string(raw)
		name := key
		if r.m != nil {
			if i := r.m.index.find(raw); i >= 0 {
				name = r.m.targets[i].name
			}
		}
		if large == nil && len(small) < smallObject {
			for _, s := range small {
				if s.name == name {
					return &DuplicateFieldError{First: s.key, Second: key, Field: name}
				}
			}
			small = append(small, member{key, name})
		} else {
			if large == nil {
				large = make(map[string]string, 2*smallObject)
				for _, s := range small {
					large[s.name] = s.key
				}
			}
			if first, ok := large[name]; ok {
				return &DuplicateFieldError{First: first, Second: key, Field: name}
			}
			large[name] = key
		}
		if err := r.colon(); err != nil {
			return err
		}
		if err := r.uniqueValue(depth); err != nil {
			return err
		}
		if done, err := r.next('}', afterMember); err != nil || done {
			return err
		}
	}
}
