package mapping

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// TieBreak records one derived name that two or more internal names
// claimed, and how it was shared out: Kept keeps Exposed, each of Renamed
// (internal -> exposed) got another name.
type TieBreak struct {
	Exposed string
	Kept    string
	Renamed map[string]string
}

// String reads `"type": Type kept; Type__c -> "typeC"`.
func (t TieBreak) String() string {
	var b strings.Builder
	kept := t.Kept
	if kept == "" {
		kept = "(explicit)"
	}
	fmt.Fprintf(&b, "%q: %s kept", t.Exposed, kept)
	for _, in := range slices.Sorted(maps.Keys(t.Renamed)) {
		fmt.Fprintf(&b, "; %s -> %q", in, t.Renamed[in])
	}
	return b.String()
}

// DeriveKeyMapWith maps each of fields to its derived name (Derive), except
// those explicit names (internal -> exposed) that fixed sets, and shares out
// every derived name that several fields claim instead of failing, by this
// rule (real record types are full of such pairs: Type and Type__c,
// Description and Description__c, Foo_Bar__c and FooBar__c):
//
//  1. an explicit name always wins: a field deriving it is renamed;
//  2. otherwise a standard field (no "__" in its name) keeps the name, over
//     a custom one (Type keeps "type" against Type__c);
//  3. otherwise the field first in byte order keeps it (FooBar__c keeps
//     "fooBar" against Foo_Bar__c, as 'B' sorts before '_');
//  4. a field that loses gets its derived name with its suffix kept as a
//     word, "__c" -> "C" (Type__c -> "typeC", Foo_Bar__c -> "fooBarC"), or,
//     without a suffix or when that is taken too, the name followed by the
//     first free number from 2 ("fooBar2").
//
// A name that is another field's internal name counts as taken, so the map
// stays reversible. Fields keeps the order of fields, then explicit names
// not among them. The tie-breaks applied are returned sorted by exposed
// name. Two explicit names that collide, and invalid names, are the errors
// of NewKeyMap.
func DeriveKeyMapWith(fields []string, fixed map[string]string) (*KeyMap, []TieBreak, error) {
	order := make([]string, 0, len(fields)+len(fixed))
	seen := make(map[string]bool, len(fields)+len(fixed))
	for _, f := range fields {
		if !seen[f] {
			seen[f] = true
			order = append(order, f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(fixed)) {
		if !seen[f] {
			seen[f] = true
			order = append(order, f)
		}
	}
	pairs := make(map[string]string, len(order))
	taken := make(map[string]bool, 2*len(order))
	holder := make(map[string]string, len(fixed))
	for _, f := range order {
		if e, ok := fixed[f]; ok {
			pairs[f] = e
			taken[e] = true
			holder[e] = f
		}
	}
	claims := make(map[string][]string)
	for _, f := range order {
		if _, ok := fixed[f]; !ok {
			d := Derive(f)
			claims[d] = append(claims[d], f)
		}
	}
	internal := func(name, self string) bool { return name != self && seen[name] }
	var breaks []TieBreak
	var losers []string
	for _, exposed := range slices.Sorted(maps.Keys(claims)) {
		cands := slices.Clone(claims[exposed])
		slices.SortFunc(cands, func(a, b string) int {
			if ca, cb := isCustomName(a), isCustomName(b); ca != cb {
				if ca {
					return 1
				}
				return -1
			}
			return strings.Compare(a, b)
		})
		first := 0
		if taken[exposed] || internal(exposed, cands[0]) {
			first = -1 // an explicit name or another field's internal name holds it
		}
		if first == 0 {
			pairs[cands[0]] = exposed
			taken[exposed] = true
		}
		if len(cands) == 1 && first == 0 {
			continue
		}
		tb := TieBreak{Exposed: exposed, Renamed: make(map[string]string)}
		if first == 0 {
			tb.Kept = cands[0]
			cands = cands[1:]
		} else if h, ok := holder[exposed]; ok {
			tb.Kept = h + " (explicit)"
		}
		losers = append(losers, cands...)
		breaks = append(breaks, tb)
	}
	for _, f := range losers {
		name := alternative(f, func(n string) bool { return taken[n] || internal(n, f) || len(claims[n]) > 0 })
		pairs[f] = name
		taken[name] = true
		for i := range breaks {
			if slices.Contains(claims[breaks[i].Exposed], f) {
				breaks[i].Renamed[f] = name
			}
		}
	}
	km, err := build(order, pairs)
	if err != nil {
		return nil, nil, err
	}
	return km, breaks, nil
}

// isCustomName reports a Salesforce-style custom or namespaced name: one
// with "__" in it.
func isCustomName(name string) bool { return strings.Contains(name, "__") }

// alternative is the name a field gets when it loses its derived name:
// rule 4 of DeriveKeyMapWith. busy reports a name that cannot be used.
func alternative(field string, busy func(string) bool) string {
	base := Derive(field)
	if n := len(field); n > 3 && strings.EqualFold(field[n-3:], "__c") {
		if kept := Derive(field[:n-3] + "_C"); !busy(kept) {
			return kept
		} else {
			base = kept
		}
	}
	for i := 2; ; i++ {
		if name := base + strconv.Itoa(i); !busy(name) {
			return name
		}
	}
}
