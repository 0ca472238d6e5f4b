// Package mappingtest holds the record lists that the mapping benchmarks
// and the load harness (cmd/loadtest) both use, so that the figures of the
// one and the other are of the same shape.
package mappingtest

import (
	"fmt"
	"strings"
)

// Records returns a JSON array of n Salesforce-style Account records as a
// query answers them: each with its attributes object (type and url), the
// model's 24 fields in plain ASCII, five of them null. About 780 bytes a
// record; record i is the same in every call.
func Records(n int) []byte {
	var b strings.Builder
	b.Grow(n * 800)
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		id := fmt.Sprintf("001%012dAAA", i)
		fmt.Fprintf(&b, `{"attributes":{"type":"Account","url":"/services/data/v58.0/sobjects/Account/%s"},`+
			`"Id":"%s","Name":"Account %d","External_Id__c":"EXT-%07d","SicDesc":null,"AccountSource":"Web",`+
			`"Site":null,"Rating":"Warm","Description":"Record number %d of the load test, with some text to read",`+
			`"TickerSymbol":null,"Ownership":"Public","NumberOfEmployees":%d,"BillingCountry":"United States",`+
			`"BillingPostalCode":"27215","BillingState":"NC","BillingCity":"Burlington","BillingStreet":"525 S. Lexington Ave",`+
			`"ParentId":null,"Type":"Customer - Direct","Total_Assets__c":%d.5,"PhotoUrl":"/services/images/photo/%s",`+
			`"Website":"www.example.com","AccountNumber":"CD%06d","Fax":null,"Phone":"(336) 222-7000"}`,
			id, id, i, i, i, 100*i, 1000000*i, id, 355000+i)
	}
	b.WriteByte(']')
	return []byte(b.String())
}
