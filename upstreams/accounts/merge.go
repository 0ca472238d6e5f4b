package accounts

import (
	"encoding/json"
	"strings"
)

// notFields are members of a record read back that are not account fields
// to send: the id is the path's, and attributes are the Salesforce
// family's record metadata.
var notFields = []string{"Id", "attributes"}

// merge returns the record rec with the members of fields in place of its
// own (names compared without case, as the backend binds them, and spelled
// as the record spells them), without the members that are not fields.
// Values keep their exact text.
func merge(rec, fields []byte) ([]byte, error) {
	var base, given map[string]json.RawMessage
	if err := json.Unmarshal(rec, &base); err != nil || base == nil {
		return nil, invalid("account is not a JSON object", err)
	}
	if err := json.Unmarshal(fields, &given); err != nil || given == nil {
		return nil, rejected("the fields to update are not a JSON object")
	}
	for k := range base {
		for _, nf := range notFields {
			if strings.EqualFold(k, nf) {
				delete(base, k)
			}
		}
	}
	for g, v := range given {
		name := g
		for k := range base {
			if strings.EqualFold(k, g) {
				name = k
			}
		}
		base[name] = v
	}
	out, err := json.Marshal(base)
	if err != nil {
		return nil, invalid("merging the account", err)
	}
	return out, nil
}
