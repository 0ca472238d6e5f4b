package main

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/restgate/gateway/mapping/mappingtest"
)

// recordLists caches the lists the backend answers, one per size asked.
type recordLists struct{ m sync.Map }

func (l *recordLists) get(n int) []byte {
	if v, ok := l.m.Load(n); ok {
		return v.([]byte)
	}
	v, _ := l.m.LoadOrStore(n, mappingtest.Records(n))
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
