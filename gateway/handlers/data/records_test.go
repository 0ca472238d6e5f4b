package data

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/mapping"
)

func identityOptions() recordOptions {
	return recordOptions{
		member:  "records",
		rewrite: mapping.Options{MaxOutput: -1},
		keyMap:  func(string) (*mapping.KeyMap, error) { return nil, nil },
		next:    func(u string) (string, error) { return u, nil },
	}
}

// FuzzRewriteRecords checks that, with no key map, no null removal and the
// next URL kept, rewriting never changes what an answer means, and that any
// answer it accepts comes out as valid JSON with the same number of records.
func FuzzRewriteRecords(f *testing.F) {
	for _, s := range []string{
		mixedAnswer(3),
		`{"totalSize":0,"done":true,"records":[]}`,
		`{"records":null,"nextRecordsUrl":null}`,
		`[{"attributes":{"type":"Contact"},"Id":"1"}]`,
		`{"records":[1,"x",null,[]],"a\u0062":{"records":[]}}`,
		`{"records":{"a":1}}`, `{"records":[`, `{} {}`, `"x"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := rewriteRecords(body, identityOptions())
		if err != nil {
			return
		}
		require.True(t, json.Valid(out), "%s", out)
		var in, got any
		require.NoError(t, json.Unmarshal(body, &in))
		require.NoError(t, json.Unmarshal(out, &got))
		require.Equal(t, in, got)

		o := identityOptions()
		o.rewrite.DropNulls = true
		km, err := mapping.DeriveKeyMap([]string{"Id", "Name", "records"})
		require.NoError(t, err)
		o.keyMap = func(string) (*mapping.KeyMap, error) { return km, nil }
		mapped, err := rewriteRecords(body, o)
		require.NoError(t, err)
		require.True(t, json.Valid(mapped))
		require.Equal(t, countRecords(t, out), countRecords(t, mapped))
	})
}

func countRecords(t *testing.T, doc []byte) int {
	t.Helper()
	var arr []json.RawMessage
	if json.Unmarshal(doc, &arr) == nil {
		return len(arr)
	}
	var obj struct {
		Records []json.RawMessage `json:"records"`
	}
	_ = json.Unmarshal(doc, &obj)
	return len(obj.Records)
}

func mixedAnswer(n int) string {
	recs := make([]string, n)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"attributes":{"type":"Contact","url":"/services/data/v35.0/sobjects/Contact/003%015d"},`+
			`"Id":"003%015d","FirstName":"Ann","LastName":"Lee","Email":null,"Title":"VP, Finance","MailingCity":"Zürich",`+
			`"Account":{"attributes":{"type":"Account"},"Name":"Acme"}}`, i, i)
	}
	return `{"totalSize":` + fmt.Sprint(n) + `,"done":false,"nextRecordsUrl":"/services/data/v35.0/query/01gD0000002HU6KIAW-2000","records":[` +
		strings.Join(recs, ",") + `]}`
}

func BenchmarkRewriteRecords200(b *testing.B) {
	body := []byte(mixedAnswer(200))
	km, err := mapping.DeriveKeyMap([]string{"Id", "AccountId", "FirstName", "LastName", "Email", "Title", "MailingCity"})
	require.NoError(b, err)
	o := identityOptions()
	o.rewrite.DropNulls = true
	o.keyMap = func(string) (*mapping.KeyMap, error) { return km, nil }
	o.next = func(string) (string, error) { return "/v2/query/01gD0000002HU6KIAW-2000", nil }
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := rewriteRecords(body, o); err != nil {
			b.Fatal(err)
		}
	}
}
