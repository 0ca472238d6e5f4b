// Package sfdc holds what the Salesforce-style sandboxes (the account
// controller, the data API, the batch upload and the public feed) share, as
// the one Salesforce org behind them would: record ids, the Account and
// Contact record types with their SQLite tables, and the error array the
// org's REST APIs answer with. It has no HTTP routes of its own.
package sfdc

import (
	"crypto/rand"
	"strings"
)

// IDAlphabet is the alphabet of Salesforce record ids.
const IDAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID is an 18-character Salesforce-style record id: the key prefix of its
// type (001 account, 003 contact, 0D5 feed item, 069 content document, 0F7
// feed message) and IDAlphabet characters from crypto/rand. Bytes of 248 and
// above are skipped so that every character is equally likely.
func NewID(prefix string) string {
	id := make([]byte, 0, 18)
	id = append(id, prefix...)
	var buf [32]byte
	for len(id) < 18 {
		_, _ = rand.Read(buf[:]) // never fails since Go 1.24
		for _, b := range buf {
			if b < 248 && len(id) < 18 {
				id = append(id, IDAlphabet[b%62])
			}
		}
	}
	return string(id)
}

// ValidID accepts 15 or 18 ASCII letters and digits, the two forms of a
// Salesforce id. It does not check the key prefix or the 18-character
// form's checksum suffix.
func ValidID(id string) bool {
	if len(id) != 15 && len(id) != 18 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if strings.IndexByte(IDAlphabet, id[i]) < 0 {
			return false
		}
	}
	return true
}
