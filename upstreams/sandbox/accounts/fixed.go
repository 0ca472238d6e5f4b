package accounts

import (
	"fmt"
	"strings"
)

// FixedList is a B1 list answer of 20 accounts with every field of
// the Account model, a third of the optional ones null, as the account
// controller writes them. It never changes: the load harness's backend
// answers it and the gateway's benchmarks read it, so both measure the
// same payload.
func FixedList() []byte {
	recs := make([]string, 20)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"Id":"001000000000%03dAAA","Name":"Account %d","External_Id__c":"EXT-%05d",`+
			`"SicDesc":null,"AccountSource":"Web","Site":null,"Rating":"Warm","Description":"Record number %d of the load test",`+
			`"TickerSymbol":null,"Ownership":"Public","NumberOfEmployees":%d,"BillingCountry":"United States",`+
			`"BillingPostalCode":"27215","BillingState":"NC","BillingCity":"Burlington","BillingStreet":"525 S. Lexington Ave",`+
			`"ParentId":null,"Type":"Customer - Direct","Total_Assets__c":%d.5,"PhotoUrl":"/services/images/photo/001000000000%03dAAA",`+
			`"Website":"www.example.com","AccountNumber":"CD%06d","Fax":null,"Phone":"(336) 222-7000"}`,
			i, i, 1000+i, i, 100*i, 1000000*i, i, 355000+i)
	}
	return []byte("[" + strings.Join(recs, ",") + "]")
}
