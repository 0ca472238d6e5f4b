package mapping

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeriveKeyMapWith(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		fields []string
		fixed  map[string]string
		want   map[string]string
		breaks []string
	}{
		{desc: "no collision", fields: []string{"Id", "Total_Assets__c"},
			want: map[string]string{"Id": "id", "Total_Assets__c": "totalAssets"}},
		{desc: "standard keeps the name, custom keeps its suffix", fields: []string{"Type__c", "Type", "Description", "Description__c"},
			want:   map[string]string{"Type": "type", "Type__c": "typeC", "Description": "description", "Description__c": "descriptionC"},
			breaks: []string{`"description": Description kept; Description__c -> "descriptionC"`, `"type": Type kept; Type__c -> "typeC"`}},
		{desc: "two custom fields: byte order", fields: []string{"Foo_Bar__c", "FooBar__c"},
			want:   map[string]string{"FooBar__c": "fooBar", "Foo_Bar__c": "fooBarC"},
			breaks: []string{`"fooBar": FooBar__c kept; Foo_Bar__c -> "fooBarC"`}},
		{desc: "the suffixed name taken too: a number", fields: []string{"Foo_Bar__c", "FooBar__c", "Foo_bar__c", "FooBarC"},
			want: map[string]string{"FooBar__c": "fooBar", "FooBarC": "fooBarC", "Foo_Bar__c": "fooBarC2", "Foo_bar__c": "fooBarC3"}},
		{desc: "relationship against custom field", fields: []string{"AccountId", "Account", "Account__c", "Owner", "Foo__r"},
			want:   map[string]string{"AccountId": "accountId", "Account": "account", "Account__c": "accountC", "Owner": "owner", "Foo__r": "fooR"},
			breaks: []string{`"account": Account kept; Account__c -> "accountC"`}},
		{desc: "explicit name wins", fields: []string{"Type", "Kind__c"}, fixed: map[string]string{"Kind__c": "type"},
			want:   map[string]string{"Type": "type2", "Kind__c": "type"},
			breaks: []string{`"type": Kind__c (explicit) kept; Type -> "type2"`}},
		{desc: "standard without suffix gets a number", fields: []string{"Foo_Bar", "FooBar"},
			want: map[string]string{"FooBar": "fooBar", "Foo_Bar": "fooBar2"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			km, breaks, err := DeriveKeyMapWith(tt.fields, tt.fixed)
			require.NoError(t, err)
			assert.Equal(t, tt.want, km.Pairs())
			if tt.breaks != nil {
				var got []string
				for _, b := range breaks {
					got = append(got, b.String())
				}
				assert.Equal(t, tt.breaks, got)
			}
			for internal, exposed := range km.Pairs() {
				back, ok := km.Internal(exposed)
				assert.True(t, ok)
				assert.Equal(t, internal, back, "reversible")
			}
		})
	}
}

func TestDeriveKeyMapWithExplicitCollision(t *testing.T) {
	t.Parallel()
	_, _, err := DeriveKeyMapWith([]string{"Id", "Name"}, map[string]string{"Id": "x", "Name": "x"})
	var ce *CollisionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "x", ce.Exposed)
}

func TestRewriteTypedRecords(t *testing.T) {
	t.Parallel()
	contact, _, err := DeriveKeyMapWith([]string{"Id", "LastName", "Account", "Owner", "Description", "Description__c"}, nil)
	require.NoError(t, err)
	account, _, err := DeriveKeyMapWith([]string{"Id", "Name", "Contacts", "Type", "Type__c"}, nil)
	require.NoError(t, err)
	user, _, err := DeriveKeyMapWith([]string{"Id", "Email"}, nil)
	require.NoError(t, err)
	types := func(typ []byte) *KeyMap {
		switch string(typ) {
		case "Contact":
			return contact
		case "Account":
			return account
		case "User":
			return user
		}
		return nil
	}
	links := &Links{Keys: NewFieldSet("url", "nextRecordsUrl"), Value: func(dst []byte, key string, raw []byte) ([]byte, bool, error) {
		if key == "url" {
			return dst, false, nil
		}
		return append(dst, `"/v2/query/01gNEXT"`...), true, nil
	}}
	src := `[
	 {"attributes":{"type":"Contact","url":"/services/data/v62.0/sobjects/Contact/003A"},"Id":"003A","LastName":"Ng","Description":"d","Description__c":"c",
	  "Account":{"attributes":{"type":"Account","url":"/x"},"Name":"Acme","Type":"Customer","Type__c":"Gold"},
	  "Owner":{"attributes":{"type":"User","url":"/y"},"Email":"o@example.com"}},
	 {"attributes":{"type":"Account","url":"/services/data/v62.0/sobjects/Account/001A"},"Id":"001A","Name":"Acme","Type":"Customer",
	  "Contacts":{"totalSize":3,"done":false,"nextRecordsUrl":"/services/data/v62.0/query/01gABC-2","records":[
	   {"attributes":{"type":"Contact","url":"/z"},"Id":"003B","LastName":"Li"}]}},
	 {"attributes":{"type":"AggregateResult"},"expr0":1,"LastName":"kept"},
	 {"Id":"plain","LastName":"no type: the top map"}
	]`
	want := `[{"attributes":{"type":"Contact"},"id":"003A","lastName":"Ng","description":"d","descriptionC":"c",` +
		`"account":{"attributes":{"type":"Account"},"name":"Acme","type":"Customer","typeC":"Gold"},` +
		`"owner":{"attributes":{"type":"User"},"email":"o@example.com"}},` +
		`{"attributes":{"type":"Account"},"id":"001A","name":"Acme","type":"Customer",` +
		`"contacts":{"totalSize":3,"done":false,"nextRecordsUrl":"/v2/query/01gNEXT","records":[` +
		`{"attributes":{"type":"Contact"},"id":"003B","lastName":"Li"}]}},` +
		`{"attributes":{"type":"AggregateResult"},"expr0":1,"LastName":"kept"},` +
		`{"id":"plain","lastName":"no type: the top map"}]`
	top, err := NewKeyMap(map[string]string{"Id": "id", "LastName": "lastName"})
	require.NoError(t, err)
	for _, predict := range []prediction{predictOff, predictOn, predictGo} {
		out, err := rewrite(nil, []byte(src), Options{Map: top, Types: types, Links: links, MaxOutput: -1}, predict)
		require.NoError(t, err)
		assert.JSONEq(t, want, string(out))
	}
}

func TestRewriteTypedRecordsSharePredictionSafely(t *testing.T) {
	t.Parallel()
	a, err := NewKeyMap(map[string]string{"Name": "accountName"})
	require.NoError(t, err)
	c, err := NewKeyMap(map[string]string{"Name": "contactName"})
	require.NoError(t, err)
	types := func(typ []byte) *KeyMap {
		if string(typ) == "Account" {
			return a
		}
		return c
	}
	src := `[{"attributes":{"type":"Account"},"Name":"x"},{"attributes":{"type":"Contact"},"Name":"y"},{"attributes":{"type":"Account"},"Name":"z"}]`
	out, err := Rewrite(nil, []byte(src), Options{Types: types, MaxOutput: -1})
	require.NoError(t, err)
	assert.Equal(t, `[{"attributes":{"type":"Account"},"accountName":"x"},{"attributes":{"type":"Contact"},"contactName":"y"},{"attributes":{"type":"Account"},"accountName":"z"}]`, string(out))
}

func TestLinksReplaceAndDrop(t *testing.T) {
	t.Parallel()
	links := &Links{Keys: NewFieldSet("url", "urls"), Value: func(dst []byte, key string, raw []byte) ([]byte, bool, error) {
		if key == "urls" {
			return append(dst, `{"sobject":"/v2/sobjects/Account"}`...), true, nil
		}
		return dst, false, nil
	}}
	src := `{"url":"/a","name":"x","urls":{"sobject":"/services/data/v62.0/sobjects/Account","uiEditTemplate":"https://org.my.salesforce.com/{ID}/e"},"list":[{"url":"/b"},{"k":1,"url":"/c"}]}`
	out, err := Rewrite(nil, []byte(src), Options{Links: links, MaxOutput: -1})
	require.NoError(t, err)
	assert.Equal(t, `{"name":"x","urls":{"sobject":"/v2/sobjects/Account"},"list":[{},{"k":1}]}`, string(out))
}

// BenchmarkRewriteTypedRecords is a query answer of 200 contacts, each with
// its Account parent, mapped by type with the links of a data answer.
func BenchmarkRewriteTypedRecords(b *testing.B) {
	contact, _, _ := DeriveKeyMapWith([]string{"Id", "FirstName", "LastName", "Email", "Account", "Description", "Description__c"}, nil)
	account, _, _ := DeriveKeyMapWith([]string{"Id", "Name", "Type", "Type__c"}, nil)
	types := func(typ []byte) *KeyMap {
		if string(typ) == "Account" {
			return account
		}
		return contact
	}
	links := &Links{Keys: NewFieldSet("url", "nextRecordsUrl"), Value: func(dst []byte, _ string, _ []byte) ([]byte, bool, error) {
		return dst, false, nil
	}}
	var src bytes.Buffer
	src.WriteString(`{"totalSize":200,"done":true,"records":[`)
	for i := range 200 {
		if i > 0 {
			src.WriteByte(',')
		}
		fmt.Fprintf(&src, `{"attributes":{"type":"Contact","url":"/services/data/v62.0/sobjects/Contact/003%015d"},"Id":"003%015d","FirstName":"Ann","LastName":"Lee","Email":"ann@example.com","Description":"d","Description__c":"c","Account":{"attributes":{"type":"Account","url":"/services/data/v62.0/sobjects/Account/001A"},"Name":"Acme","Type":"Customer","Type__c":"Gold"}}`, i, i)
	}
	src.WriteString(`]}`)
	opts := Options{Types: types, Links: links, MaxOutput: -1}
	dst := make([]byte, 0, src.Len())
	b.SetBytes(int64(src.Len()))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = Rewrite(dst[:0], src.Bytes(), opts); err != nil {
			b.Fatal(err)
		}
	}
}
