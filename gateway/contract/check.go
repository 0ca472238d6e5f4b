package contract

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/restgate/gateway/gateway/envelope"
)

// CheckQuery checks a request's query (already strictly decoded) against
// the operation's declaration, the same way on every route:
//
//   - a parameter the operation does not declare is PARAMETER_INVALID
//     naming every such parameter and listing those it takes (the backend
//     would silently ignore it, or answer everything);
//   - a parameter given more than once, an empty value (unless the
//     parameter allows it), a value not of the parameter's type, outside
//     its bounds or not one of its values is PARAMETER_INVALID naming it;
//   - a required parameter not given is PARAMETER_INVALID naming it.
//
// It allocates nothing for a query that passes.
func (o *Operation) CheckQuery(q url.Values) error {
	var unknown []string
	for name := range q {
		if o.queryParam(name) == nil {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		for i, n := range unknown {
			unknown[i] = clip(n)
		}
		if more := len(unknown) - 5; more > 0 {
			unknown = append(unknown[:5], "and "+strconv.Itoa(more)+" more")
		}
		reason := "not a parameter of this operation"
		if len(unknown) > 1 {
			reason = "not parameters of this operation"
		}
		return envelope.InvalidParameter(strings.Join(unknown, ", "), reason+"; it takes "+o.takes())
	}
	for i := range o.Query {
		p := &o.Query[i]
		vals := q[p.Name]
		if len(vals) == 0 || p.AllowEmpty && len(vals) == 1 && vals[0] == "" {
			if p.Required {
				return envelope.InvalidParameter(p.Name, "required")
			}
			continue
		}
		if len(vals) > 1 {
			return envelope.InvalidParameter(p.Name, "given more than once")
		}
		if reason := p.check(vals[0]); reason != "" {
			return envelope.InvalidParameter(p.Name, reason)
		}
	}
	return nil
}

// CheckEmpty is CheckQuery of a request without a query: it fails only
// when a parameter is required.
func (o *Operation) CheckEmpty() error {
	for i := range o.Query {
		if o.Query[i].Required {
			return envelope.InvalidParameter(o.Query[i].Name, "required")
		}
	}
	return nil
}

func (o *Operation) queryParam(name string) *Param {
	for i := range o.Query {
		if o.Query[i].Name == name {
			return &o.Query[i]
		}
	}
	return nil
}

// takes lists the operation's query parameters for a refusal.
func (o *Operation) takes() string {
	if len(o.Query) == 0 {
		return "none"
	}
	names := make([]string, len(o.Query))
	for i, p := range o.Query {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// check returns why v is not a value of p, or "".
func (p *Param) check(v string) string {
	if v == "" {
		return "must not be empty"
	}
	switch p.Type {
	case Integer:
		n, ok := parseInt(v)
		if !ok || n < p.Min || n > p.Max {
			return "must be an integer from " + strconv.FormatInt(p.Min, 10) + " to " + strconv.FormatInt(p.Max, 10)
		}
		return ""
	case Boolean:
		if v != "true" && v != "false" {
			return "must be true or false"
		}
		return ""
	}
	if p.Enum != nil {
		if !slices.Contains(p.Enum, v) {
			return "must be " + orList(p.Enum)
		}
		return ""
	}
	if p.MaxLength > 0 && len(v) > p.MaxLength {
		return "must be at most " + strconv.Itoa(p.MaxLength) + " bytes"
	}
	if !utf8.ValidString(v) {
		return "must be valid UTF-8"
	}
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return "must not contain control characters"
	}
	return ""
}

// parseInt accepts plain decimal digits only, at most 18 of them (so the
// value fits an int64 without overflow checks).
func parseInt(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// orList is "a, b or c".
func orList(vals []string) string {
	if len(vals) == 1 {
		return vals[0]
	}
	return strings.Join(vals[:len(vals)-1], ", ") + " or " + vals[len(vals)-1]
}

// clip bounds a parameter name quoted back to the client.
func clip(s string) string {
	const max = 64
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "..."
}
