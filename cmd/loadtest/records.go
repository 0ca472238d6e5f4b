package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// records returns a JSON array of n Salesforce-style Account records as a
// query answers them: each with its attributes object (type and url), the
// model's 24 fields, a few of them null. About 780 bytes a record.
func records(n int) []byte {
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

// recordLists caches the lists the backend answers, one per size asked.
type recordLists struct{ m sync.Map }

func (l *recordLists) get(n int) []byte {
	if v, ok := l.m.Load(n); ok {
		return v.([]byte)
	}
	v, _ := l.m.LoadOrStore(n, records(n))
	return v.([]byte)
}

// listSize is the size asked by ?limit=N&offset=0, or 0 when the request
// does not page.
func listSize(r *http.Request) (int, error) {
	q := r.URL.Query()
	if !q.Has("limit") {
		return 0, nil
	}
	n, err := strconv.Atoi(q.Get("limit"))
	if err != nil || n < 1 || n > maxRecords || q.Get("offset") != "0" {
		return 0, fmt.Errorf("limit from 1 to %d with offset 0", maxRecords)
	}
	return n, nil
}

// pagePath is the query that asks for n records; "" for the fixed list.
func pagePath(n int) string {
	if n == 0 {
		return ""
	}
	return "?limit=" + strconv.Itoa(n) + "&offset=0"
}
