package mapping

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRejectDuplicates(t *testing.T) {
	t.Parallel()
	km, err := DeriveKeyMap([]string{"Id", "Name", "Total_Assets__c", "BillingCity"})
	require.NoError(t, err)
	rev := km.Reverse()
	many := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,` +
		`"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"name":"a","k18":18,"Name":"b"}`
	tests := []struct {
		desc, src string
		m         *KeyMap
		want      *DuplicateFieldError
	}{
		{desc: "distinct fields", src: `{"name":"a","totalAssets":1}`, m: rev},
		{desc: "exposed then internal", src: `{"name":"a","Name":"b"}`, m: rev,
			want: &DuplicateFieldError{First: "name", Second: "Name", Field: "Name"}},
		{desc: "internal then exposed", src: `{"Name":"a","id":"1","name":"b"}`, m: rev,
			want: &DuplicateFieldError{First: "Name", Second: "name", Field: "Name"}},
		{desc: "a key twice, no map", src: `{"a":1,"a":2}`,
			want: &DuplicateFieldError{First: "a", Second: "a", Field: "a"}},
		{desc: "escaped", src: `{"name":"a","n\u0061me":"b"}`, m: rev,
			want: &DuplicateFieldError{First: "name", Second: "name", Field: "Name"}},
		{desc: "nested object", src: `{"name":"a","parent":{"billingCity":"x","BillingCity":"y"}}`, m: rev,
			want: &DuplicateFieldError{First: "billingCity", Second: "BillingCity", Field: "BillingCity"}},
		{desc: "in an array element", src: `[{"name":"a"},{"id":"1","Id":"2"}]`, m: rev,
			want: &DuplicateFieldError{First: "id", Second: "Id", Field: "Id"}},
		{desc: "same name in sibling objects", src: `[{"name":"a"},{"name":"b"}]`, m: rev},
		{desc: "a large object", src: many, m: rev,
			want: &DuplicateFieldError{First: "name", Second: "Name", Field: "Name"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			opts := Options{Map: tt.m, MaxOutput: -1, RejectDuplicates: true}
			out, err := Rewrite([]byte("pre"), []byte(tt.src), opts)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var dup *DuplicateFieldError
			require.ErrorAs(t, err, &dup)
			assert.Equal(t, tt.want, dup)
			assert.Equal(t, "pre", string(out), "nothing appended")
			opts.RejectDuplicates = false
			_, err = Rewrite(nil, []byte(tt.src), opts)
			assert.NoError(t, err, "only asked for, never by default")
		})
	}
}

func BenchmarkRewriteReverseInputUnique(b *testing.B) {
	km, err := DeriveKeyMap(accountFields())
	if err != nil {
		b.Fatal(err)
	}
	src := []byte(`{"name":"Edge Communications","externalId":"EXT-1","numberOfEmployees":1000,` +
		`"billingCity":"Austin","totalAssets":139000000.50,"website":"http://edgecomm.com"}`)
	opts := Options{Map: km.Reverse(), RejectUnknown: true, RejectDuplicates: true}
	dst := make([]byte, 0, 256)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if dst, err = Rewrite(dst[:0], src, opts); err != nil {
			b.Fatal(err)
		}
	}
}
