package mapping

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNameIndex(t *testing.T) {
	t.Parallel()
	names := append(accountFields(), "", "a", "Billing_X_Street", "Billing_Y_Street", "Id", strings.Repeat("x", 300))
	x := newNameIndex(names)
	tests := []struct {
		desc string
		key  string
		want int
	}{
		{desc: "first name", key: "Id", want: 0},
		{desc: "repeated name is found at its first position", key: "Id", want: 0},
		{desc: "long name", key: "Total_Assets__c", want: 18},
		{desc: "empty name", key: "", want: 24},
		{desc: "one byte", key: "a", want: 25},
		{desc: "same ends and length, different middle", key: "Billing_Y_Street", want: 27},
		{desc: "longer than a word on both ends", key: strings.Repeat("x", 300), want: 29},
		{desc: "prefix of a name", key: "Nam", want: -1},
		{desc: "name plus a byte", key: "Name2", want: -1},
		{desc: "same ends, different middle, absent", key: "Billing_Z_Street", want: -1},
		{desc: "case differs", key: "id", want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, x.find([]byte(tt.key)))
		})
	}
	var empty nameIndex
	assert.Equal(t, -1, empty.find([]byte("Id")), "zero index")
}

// FuzzNameIndex checks the index against a map.
func FuzzNameIndex(f *testing.F) {
	f.Add("Id,Name,External_Id__c", "Name")
	f.Add("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", "q")
	f.Add("Billing_X_Street,Billing_Y_Street", "Billing_Z_Street")
	f.Add(",x", "")
	f.Fuzz(func(t *testing.T, list, key string) {
		names := strings.Split(list, ",")
		first := make(map[string]int, len(names))
		for i, n := range names {
			if _, ok := first[n]; !ok {
				first[n] = i
			}
		}
		want, ok := first[key]
		if !ok {
			want = -1
		}
		x := newNameIndex(names)
		assert.Equal(t, want, x.find([]byte(key)))
		for n, i := range first {
			assert.Equal(t, i, x.find([]byte(n)), n)
		}
	})
}

// BenchmarkNameIndex compares the index with the Go map it replaces on the
// account field names, each looked up once, and one absent name.
func BenchmarkNameIndex(b *testing.B) {
	names := accountFields()
	keys := make([][]byte, 0, len(names)+1)
	m := make(map[string]int, len(names))
	for i, n := range names {
		keys = append(keys, []byte(n))
		m[n] = i
	}
	keys = append(keys, []byte("attributes"))
	x := newNameIndex(names)
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		found := 0
		for b.Loop() {
			for _, k := range keys {
				if x.find(k) >= 0 {
					found++
				}
			}
		}
		assert.Equal(b, b.N*len(names), found)
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		found := 0
		for b.Loop() {
			for _, k := range keys {
				if _, ok := m[string(k)]; ok {
					found++
				}
			}
		}
		assert.Equal(b, b.N*len(names), found)
	})
}
