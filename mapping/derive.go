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
			writeCapitalised(&b, word)
		}
	}
	return lowerFirst(b.String())
}

func writeCapitalised(b *strings.Builder, word string) {
	if word == "" {
		return
	}
	r, size := utf8.DecodeRuneInString(word)
	if r == utf8.RuneError {
		// Keep undecodable bytes as they are rather than inventing U+FFFD.
		b.WriteString(word)
		return
	}
	b.WriteRune(unicode.ToUpper(r))
	b.WriteString(word[size:])
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	lower := unicode.ToLower(r)
	if lower == r {
		return s
	}
	return string(lower) + s[size:]
}
