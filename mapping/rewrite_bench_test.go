package mapping

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/restgate/gateway/mapping/mappingtest"
)

// benchAccounts returns a JSON array of Salesforce-style account records of
// at least size bytes.
func benchAccounts(size int) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"attributes":{"type":"Account","url":"/services/data/v59.0/sobjects/Account/001xx%013d"},`+
			`"Id":"001xx%013d","Name":"Account %d \u00e9","External_Id__c":"EXT-%06d","SicDesc":null,`+
			`"AccountSource":"Web","Site":null,"Rating":"Warm","Description":"Line one\nLine \"two\"",`+
			`"NumberOfEmployees":%d,"BillingCountry":"USA","BillingPostalCode":null,"BillingState":"TX",`+
			`"BillingCity":"Austin","BillingStreet":"312 Constitution Place","ParentId":null,`+
			`"Type":"Customer - Direct","Total_Assets__c":%d.50,"Website":"http://example.com","Phone":"(512) 757-6000"}`,
			i, i, i, i, i*7, i*1000003)
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// baselineRewrite is the obvious implementation Rewrite replaces: decode
// into any, rename recursively, encode again.
func baselineRewrite(src []byte, pairs map[string]string, dropNulls bool) ([]byte, error) {
	var v any
	if err := json.Unmarshal(src, &v); err != nil {
		return nil, err
	}
	return json.Marshal(baselineRename(v, pairs, dropNulls))
}

func baselineRename(v any, pairs map[string]string, dropNulls bool) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			if dropNulls && val == nil {
				continue
			}
			if mapped, ok := pairs[k]; ok {
				k = mapped
			}
			out[k] = baselineRename(val, pairs, dropNulls)
		}
		return out
	case []any:
		for i, val := range t {
			t[i] = baselineRename(val, pairs, dropNulls)
		}
		return t
	default:
		return v
	}
}

// BenchmarkRewriteAccounts rewrites account arrays: 3 KB (5 records), 14
// KB (20 records, what GET /v2/accounts reads from the data upstream) and
// 1 MiB.
func BenchmarkRewriteAccounts(b *testing.B) {
	km, err := DeriveKeyMap(accountFields())
	if err != nil {
		b.Fatal(err)
	}
	pairs := km.Pairs()
	for _, size := range []struct {
		name  string
		bytes int
	}{{"3KB", 3 << 10}, {"14KB", 14 << 10}, {"1MiB", 1 << 20}} {
		src := benchAccounts(size.bytes)
		b.Run("streaming/"+size.name, func(b *testing.B) {
			opts := Options{Map: km, DropNulls: true, MaxOutput: -1}
			dst := make([]byte, 0, len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				dst, err = Rewrite(dst[:0], src, opts)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("baseline/"+size.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := baselineRewrite(src, pairs, true); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRewriteSelect(b *testing.B) {
	legacy := legacyAccountMap(b)
	src := benchAccounts(3 << 10)
	opts := Options{Map: legacy, Select: NewFieldSet("Id", "Name"), DropNulls: true}
	dst := make([]byte, 0, len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = Rewrite(dst[:0], src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRewriteReverseInput(b *testing.B) {
	km, err := DeriveKeyMap(accountFields())
	if err != nil {
		b.Fatal(err)
	}
	src := []byte(`{"name":"Edge Communications","externalId":"EXT-1","numberOfEmployees":1000,` +
		`"billingCity":"Austin","totalAssets":139000000.50,"website":"http://edgecomm.com"}`)
	opts := Options{Map: km.Reverse(), RejectUnknown: true}
	dst := make([]byte, 0, 256)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if dst, err = Rewrite(dst[:0], src, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBaselineAgrees keeps the benchmark honest: both sides compute the
// same document.
func TestBaselineAgrees(t *testing.T) {
	t.Parallel()
	km, err := DeriveKeyMap(accountFields())
	if err != nil {
		t.Fatal(err)
	}
	src := benchAccounts(3 << 10)
	got, err := Rewrite(nil, src, Options{Map: km, DropNulls: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := baselineRewrite(src, km.Pairs(), true)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("streaming and baseline differ:\n%s\n%s", got, want)
	}
}

// BenchmarkRewriteRecords rewrites the load harness's record lists (20 and
// 2000 records) as the gateway's v2 answers do: derived names, nulls
// dropped, counted for the page.
func BenchmarkRewriteRecords(b *testing.B) {
	km, err := DeriveKeyMap(accountFields())
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{20, 2000} {
		src := mappingtest.Records(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			opts := Options{Map: km, DropNulls: true, MaxOutput: -1}
			dst := make([]byte, 0, len(src)+1024)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				var count int
				dst, count, err = RewriteCount(dst[:0], src, opts)
				if err != nil || count != n {
					b.Fatal(count, err)
				}
			}
		})
	}
}
