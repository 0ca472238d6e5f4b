package metrics

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// queriedNames returns the gateway metric names and recording-rule names
// (those with a colon) in a PromQL expression. Quoted strings are skipped:
// a label value is not a query.
func queriedNames(expr string) []string {
	var names []string
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipQuoted(expr, i)
		case isIdentByte(c):
			start := i
			for i < len(expr) && isIdentByte(expr[i]) {
				i++
			}
			word := expr[start:i]
			// A run starting with a digit is a number or a duration ("5m", "30m:1m").
			if word[0] >= '0' && word[0] <= '9' {
				continue
			}
			if strings.HasPrefix(word, namespace+"_") || strings.Contains(word, ":") {
				names = append(names, word)
			}
		default:
			i++
		}
	}
	return names
}

func isIdentByte(c byte) bool { return isNameByte(c) || c == ':' }

// skipQuoted returns the index after the string literal opening at i.
func skipQuoted(s string, i int) int {
	quote := s[i]
	for i++; i < len(s); i++ {
		switch {
		case s[i] == '\\' && quote != '`':
			i++
		case s[i] == quote:
			return i + 1
		}
	}
	return len(s)
}

func FuzzQueriedNames(f *testing.F) {
	for _, seed := range []string{
		`sum by (id) (rate(gateway_errors_total{id="URL_INVALID"}[5m]))`,
		`route:gateway_requests:rate5m > on (route) vector(1)`,
		`max_over_time(gateway_breaker_state[30m:1m])`, `"unterminated`, `'a\'b' gateway_x`, "`raw`",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		for _, name := range queriedNames(expr) {
			assert.True(t, strings.HasPrefix(name, namespace+"_") || strings.Contains(name, ":"), "name %q", name)
			assert.Contains(t, expr, name)
		}
	})
}
