package sandbox

import "crypto/rand"

// base62 is the alphabet of Salesforce-style record ids.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// accountKeyPrefix starts every account id, as in Salesforce.
const accountKeyPrefix = "001"

// newRecordID is an 18-character Salesforce-style id: the key prefix of its
// type (001 account, 0D5 feed item, 069 content document, 0F7 feed message)
// and base62 characters from crypto/rand. Bytes of 248 and above are skipped
// so that every character is equally likely.
func newRecordID(prefix string) string {
	id := make([]byte, 0, 18)
	id = append(id, prefix...)
	var buf [32]byte
	for len(id) < 18 {
		_, _ = rand.Read(buf[:]) // never fails since Go 1.24
		for _, b := range buf {
			if b < 248 && len(id) < 18 {
				id = append(id, base62[b%62])
			}
		}
	}
	return string(id)
}
