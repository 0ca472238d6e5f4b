package mapping

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Derive returns the exposed name of an internal field name by the rules in
// the package documentation: Total_Assets__c -> totalAssets,
// acme__Credit_Score__c -> acmeCreditScore, Parent__r -> parentR, Id -> id.
// It never fails; an empty result means the name has no usable letters.
func Derive(internal string) string {
	segs := strings.Split(internal, "__")
	namespace := ""
	if len(segs) >= 3 {
		namespace, segs = segs[0], segs[1:]
	}
	if n := len(segs); n >= 2 && (segs[n-1] == "c" || segs[n-1] == "C") {
		segs = segs[:n-1]
	}

	var b strings.Builder
	b.Grow(len(internal))
	b.WriteString(strings.ToLower(strings.ReplaceAll(namespace, "_", "")))
	for _, seg := range segs {
		for _, word := range strings.Split(seg, "_") {
			writeWord(&b, word, b.Len() == 0)
		}
	}
	// undecodable bytes of two words can make one letter once the
	// underscore between them is gone, an upper-case one at the start too
	return lowerFirst(b.String())
}

func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if lower := unicode.ToLower(r); lower != r {
		return string(lower) + s[size:]
	}
	return s
}

// writeWord writes word with its first letter in lower case when it
// starts the name, in upper case otherwise. The first letter is lowered
// as it is, never upper-cased first: ToLower(ToUpper(r)) is another letter
// for some (ϑ, ς, ſ, µ), and a derived name must derive to itself.
func writeWord(b *strings.Builder, word string, first bool) {
	if word == "" {
		return
	}
	r, size := utf8.DecodeRuneInString(word)
	if r == utf8.RuneError {
		// Keep undecodable bytes as they are rather than inventing U+FFFD.
		b.WriteString(word)
		return
	}
	if first {
		b.WriteRune(unicode.ToLower(r))
	} else {
		b.WriteRune(unicode.ToUpper(r))
	}
	b.WriteString(word[size:])
}
