package data_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

const apiBase = "/services/data/v35.0"

// fakeAPI is a data API that answers fixed documents to exactly the
// requests the adapter must send, counts describes, and answers 418 to
// anything else.
type fakeAPI struct {
	*httptest.Server
	describes atomic.Int32
	// describeGate, when set, holds describes until it is closed.
	describeGate chan struct{}
}

// Fixed answers of the fake.
const (
	contactDescribe = `{"name":"Contact","fields":[{"name":"Id","type":"id"},{"name":"AccountId","type":"reference","relationshipName":"Account"},
		{"name":"FirstName","type":"string"},{"name":"LastName","type":"string"},{"name":"Email","type":"email"}]}`
	mixedQuery = `{"totalSize":5,"done":false,"nextRecordsUrl":"/services/data/v35.0/query/01gD0000002HU6KIAW-3",
		"records":[
		{"attributes":{"type":"Account","url":"/services/data/v35.0/sobjects/Account/001A"},"Id":"001A","Name":"Acme","Total_Assets__c":12.50,"BillingCity":null},
		{"attributes":{"type":"Contact","url":"/services/data/v35.0/sobjects/Contact/003B"},"Id":"003B","FirstName":"Ann","LastName":"Lee","Email":null},
		{"attributes":{"type":"AggregateResult"},"expr0":7,"Name_Total":null}]}`
	lastBatch = `{"totalSize":5,"done":true,"records":[
		{"attributes":{"type":"Contact","url":"/services/data/v35.0/sobjects/Contact/003C"},"Id":"003C","FirstName":"Bo","LastName":"Ng","Email":"bo@example.com"},
		{"attributes":{"type":"Account","url":"/services/data/v35.0/sobjects/Account/001D"},"Id":"001D","Name":"Initech","Type":null}]}`
	searchAnswer = `{"searchRecords":[{"attributes":{"type":"Contact","url":"/x"},"Id":"003B","FirstName":"Ann"}]}`
	notFound     = `[{"message":"The requested resource does not exist","errorCode":"NOT_FOUND"}]`
)

func newFakeAPI(t *testing.T) *fakeAPI {
	t.Helper()
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.Header.Get("Accept") != "application/json" {
		answerWith(w, http.StatusTeapot, `[{"errorCode":"FAKE_MISMATCH","message":"method or accept"}]`)
		return
	}
	q := r.URL.Query().Get("q")
	switch path := r.URL.EscapedPath(); {
	case path == "/services/data":
		answerWith(w, 200, `[{"label":"Winter '16","url":"/services/data/v35.0","version":"35.0"}]`)
	case path == apiBase+"/sobjects/Contact/describe":
		f.describes.Add(1)
		if f.describeGate != nil {
			<-f.describeGate
		}
		answerWith(w, 200, contactDescribe)
	case strings.HasSuffix(path, "/describe"):
		f.describes.Add(1)
		answerWith(w, 404, notFound)
	case path == apiBase+"/sobjects/Contact":
		answerWith(w, 200, `{"objectDescribe":{"name":"Contact"},"recentItems":[]}`)
	case path == apiBase+"/query" && q == "SELECT mixed":
		answerWith(w, 200, mixedQuery)
	case path == apiBase+"/query" && q == "SELECT odd next":
		answerWith(w, 200, `{"totalSize":1,"done":false,"nextRecordsUrl":"https://elsewhere.example.com/next?page=2","records":[]}`)
	case path == apiBase+"/query" && q == "SELECT broken":
		answerWith(w, 200, `{"totalSize":1,"records":{"not":"an array"}}`)
	case path == apiBase+"/query" && q == "SELECT with children":
		// A parent-to-child subquery as the REST API documents it: the
		// relationship holds its own query result, paged by its own
		// nextRecordsUrl; a parent without children has null.
		answerWith(w, 200, `{"totalSize":2,"done":true,"records":[
			{"attributes":{"type":"Account","url":"/services/data/v35.0/sobjects/Account/001A"},"Name":"Acme",
			 "Contacts":{"totalSize":3,"done":false,"nextRecordsUrl":"/services/data/v35.0/query/01gD0000002HU6KIAW-200",
			  "records":[{"attributes":{"type":"Contact","url":"/services/data/v35.0/sobjects/Contact/003B"},"LastName":"Lee",
			   "Account":{"attributes":{"type":"Account","url":"/services/data/v35.0/sobjects/Account/001A"},"Name":"Acme"}}]}},
			{"attributes":{"type":"Account","url":"/services/data/v35.0/sobjects/Account/001B"},"Name":"Initech","Contacts":null}]}`)
	case path == apiBase+"/query" && q == "SELECT down":
		answerWith(w, 500, `[{"message":"An unexpected error occurred.","errorCode":"UNKNOWN_EXCEPTION"}]`)
	case path == apiBase+"/query":
		answerWith(w, 400, `[{"message":"unexpected token: FORM","errorCode":"MALFORMED_QUERY"}]`)
	case path == apiBase+"/query/01gD0000002HU6KIAW-3":
		answerWith(w, 200, lastBatch)
	case strings.HasPrefix(path, apiBase+"/query/"):
		answerWith(w, 400, `[{"message":"invalid query locator","errorCode":"INVALID_QUERY_LOCATOR"}]`)
	case path == apiBase+"/search" && q == "FIND {Ann}":
		answerWith(w, 200, searchAnswer)
	case path == apiBase+"/search" && q == "FIND {bare}":
		// Up to API 36.0 a search answers a bare array.
		answerWith(w, 200, `[{"attributes":{"type":"Contact","url":"/services/data/v35.0/sobjects/Contact/003B"},"Id":"003B","FirstName":"Ann"}]`)
	case path == apiBase+"/search":
		answerWith(w, 400, `[{"message":"search term must be longer than one character","errorCode":"INVALID_SEARCH"}]`)
	default:
		answerWith(w, 404, notFound)
	}
}

func answerWith(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
