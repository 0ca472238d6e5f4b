package mapping

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// predicting are the prediction modes that take the member loop: each
// must give what predictOff gives.
var predicting = []prediction{predictOn, predictGo}

// predictOptions are the option sets the prediction tests run under: each
// decision a remembered key carries (mapped name, Select, RejectUnknown,
// null dropping) in turn.
func predictOptions(t testing.TB) map[string]Options {
	km := mustMap(t, map[string]string{
		"Id": "id", "Id2": "id2", "Name": "name", "Name2": "name2", "Total_Assets__c": "totalAssets", "type": "kind",
	})
	return map[string]Options{
		"copy":           {},
		"map":            {Map: km},
		"map drop nulls": {Map: km, DropNulls: true},
		"select":         {Map: km, Select: NewFieldSet("Id", "Name2", "attributes")},
		"reverse reject": {Map: km.Reverse(), RejectUnknown: true},
		"reject select":  {Map: km, RejectUnknown: true, Select: NewFieldSet("Name"), DropNulls: true},
	}
}

func TestRewritePredictedKeys(t *testing.T) {
	t.Parallel()
	opts := predictOptions(t)
	// The member loop's fast path needs some input after a member; short
	// documents get this tail so that their records take it.
	padding := `"` + strings.Repeat("z", 64) + `"`
	tests := []struct {
		desc string
		src  string
		opts string
		want string // "" when only prediction on and off are compared
	}{
		{
			desc: "same keys in the same order",
			src:  `[{"Id":1,"Name":"a"},{"Id":2,"Name":"b"},{"Id":3,"Name":"c"}]`,
			opts: "map", want: `[{"id":1,"name":"a"},{"id":2,"name":"b"},{"id":3,"name":"c"}]`,
		},
		{
			desc: "different key orders",
			src:  `[{"Id":1,"Name":"a","x":0},{"Name":"b","Id":2,"x":0},{"x":0,"Id":3,"Name":"c"}]`,
			opts: "map", want: `[{"id":1,"name":"a","x":0},{"name":"b","id":2,"x":0},{"x":0,"id":3,"name":"c"}]`,
		},
		{
			desc: "missing and extra keys",
			src:  `[{"Id":1,"Name":"a"},{"Id":2},{"Id":3,"Name":"c","Extra":4},{"Name":"d"},{}]`,
			opts: "map", want: `[{"id":1,"name":"a"},{"id":2},{"id":3,"name":"c","Extra":4},{"name":"d"},{}]`,
		},
		{
			desc: "keys that are prefixes of each other",
			src:  `[{"Id":1,"Name":"a"},{"Id2":2,"Name2":"b"},{"Id":3,"Name":"c"},{"I":4,"Nam":5}]`,
			opts: "map", want: `[{"id":1,"name":"a"},{"id2":2,"name2":"b"},{"id":3,"name":"c"},{"I":4,"Nam":5}]`,
		},
		{
			desc: "a remembered key followed by more key text",
			src:  `[{"Id":1},{"Id":2},{"Id" :3},{"Id"x:4}]`,
			opts: "map", want: "",
		},
		{
			desc: "escaped keys",
			src:  `[{"Name":1,"Id":2},{"Na\u006de":3,"I\u0064":4},{"Name":5,"Id":6},{"Na\u006de":7,"Id":8}]`,
			opts: "map", want: `[{"name":1,"id":2},{"name":3,"id":4},{"name":5,"id":6},{"name":7,"id":8}]`,
		},
		{
			desc: "escaped unmapped key after a remembered one",
			src:  `[{"Other":1},{"O\u0074her":2},{"Other":3}]`,
			opts: "map", want: `[{"Other":1},{"O\u0074her":2},{"Other":3}]`,
		},
		{
			desc: "duplicate keys",
			src:  `[{"Id":1,"Id":2},{"Id":3,"Id":4,"Id":5},{"Id":6}]`,
			opts: "map", want: `[{"id":1,"id":2},{"id":3,"id":4,"id":5},{"id":6}]`,
		},
		{
			desc: "whitespace around keys changes nothing",
			src:  "[{\"Id\":1,\"Name\":2},{ \"Id\" : 3 , \"Name\"\n:\t4 },{\"Id\":5,\"Name\":6}]",
			opts: "map", want: `[{"id":1,"name":2},{"id":3,"name":4},{"id":5,"name":6}]`,
		},
		{
			desc: "space after the comma of a predicted member",
			src:  "[{\"Id\":1,\"Name\":\"a\",\"Type\":\"b\",\"x\":null,\"y\":2},{\"Id\":1,\"Name\":\"a\",\"Type\":\"b\",\"x\":null, \"y\":2, 3}]",
			opts: "map drop nulls", want: "",
		},
		{
			desc: "space after the comma of a predicted member, valid",
			src:  "[{\"Id\":1,\"Name\":\"a\",\"Type\":\"b\",\"x\":null,\"y\":2},{\"Id\":1,\"Name\":\"a\",\"Type\":\"b\",\"x\":null, \"y\":2}]",
			opts: "map drop nulls", want: `[{"id":1,"name":"a","Type":"b","y":2},{"id":1,"name":"a","Type":"b","y":2}]`,
		},
		{
			desc: "nested objects whose first members are dropped",
			src:  `[{"x":{"a":null,"b":1}},{"x":{"a":null,"b":2}},{"x":{"a":null}},{"x":{"a":null,"Id":"3"}},{"x":{"b":4}}]`,
			opts: "map drop nulls", want: `[{"x":{"b":1}},{"x":{"b":2}},{"x":{}},{"x":{"id":"3"}},{"x":{"b":4}}]`,
		},
		{
			desc: "drop nulls with keys moving",
			src:  `[{"Id":null,"Name":"a"},{"Name":null,"Id":2},{"Id":3,"Name":null,"x":null}]`,
			opts: "map drop nulls", want: `[{"name":"a"},{"id":2},{"id":3}]`,
		},
		{
			desc: "select with keys moving",
			src:  `[{"Id":1,"Name":2,"Name2":3},{"Name2":4,"Name":5,"Id":6},{"Name":7,"Id2":8,"Id":9}]`,
			opts: "select", want: `[{"id":1,"name2":3},{"name2":4,"id":6},{"id":9}]`,
		},
		{
			desc: "select keeps nested keys whatever their position",
			src:  `[{"attributes":{"Id":1,"Name":2},"Id":3},{"Id":4,"attributes":{"Name":5,"Id":6}}]`,
			opts: "select", want: `[{"attributes":{"id":1,"name":2},"id":3},{"id":4,"attributes":{"name":5,"id":6}}]`,
		},
		{
			desc: "nested objects at the positions of record keys",
			src:  `[{"type":{"type":1},"x":{"y":{"type":2}}},{"x":{"type":3},"type":{"x":4}}]`,
			opts: "map", want: `[{"kind":{"kind":1},"x":{"y":{"kind":2}}},{"x":{"kind":3},"kind":{"x":4}}]`,
		},
		{
			desc: "reject unknown after remembered keys",
			src:  `[{"id":1,"name":2},{"id":3,"name":4},{"id":5,"bogus":6}]`,
			opts: "reverse reject", want: "",
		},
		{
			desc: "reject unknown escaped after remembered keys",
			src:  `[{"id":1,"name":2},{"id":3,"n\u0061me":4},{"id":5,"n\u0061mex":6}]`,
			opts: "reverse reject", want: "",
		},
		{
			desc: "reject, select and drop nulls together",
			src:  `[{"Id":1,"Name":null},{"Name":"a","Id":2},{"Id":3,"Name":"b"},{"Name":"c","Oops":4}]`,
			opts: "reject select", want: "",
		},
		{
			desc: "more members than remembered positions",
			src:  manyKeys(3, maxSlots+10),
			opts: "map", want: "",
		},
		{
			desc: "syntax error at a remembered key",
			src:  `[{"Id":1,"Name":2},{"Id":1,"Name":2,}]`,
			opts: "map", want: "",
		},
		{
			desc: "remembered key cut off at the end",
			src:  `[{"Name":1},{"Name"`,
			opts: "map", want: "",
		},
	}
	for _, tt := range tests {
		for _, padded := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/padded=%v", tt.desc, padded), func(t *testing.T) {
				t.Parallel()
				o, ok := opts[tt.opts]
				require.True(t, ok, tt.opts)
				src, wantDoc := tt.src, tt.want
				if padded {
					src = padArray(src, padding)
					if wantDoc != "" {
						wantDoc = padArray(wantDoc, padding)
					}
				}
				want, wantErr := rewrite([]byte("pre"), []byte(src), o, predictOff)
				for _, p := range predicting {
					got, err := rewrite([]byte("pre"), []byte(src), o, p)
					assert.Equal(t, string(want), string(got), p)
					assert.Equal(t, wantErr, err, p)
					if wantDoc != "" {
						require.NoError(t, err)
						assert.Equal(t, "pre"+wantDoc, string(got))
					}
				}
			})
		}
	}
}

// padArray adds elem as the last element of the array doc (a document
// that does not end with a bracket is returned with elem after it), so
// that every record before it has input enough behind it for the member
// loop's fast path.
func padArray(doc, elem string) string {
	if body, ok := strings.CutSuffix(doc, "]"); ok {
		return body + "," + elem + "]"
	}
	return doc + elem
}

// TestRewritePredictedKeysEveryOption runs every case of the prediction
// test under every option set: prediction must never change a result.
func TestRewritePredictedKeysEveryOption(t *testing.T) {
	t.Parallel()
	srcs := []string{
		`[{"Id":1,"Name":"a","Id2":null},{"Id2":2,"Name":null,"Id":3},{"Name2":4,"Id":null,"Nam":5}]`,
		`[{"attributes":{"type":"A"},"Id":1},{"attributes":{"type":"B","url":"u"},"Id":2},{"Id":3,"attributes":{}}]`,
		`[{"id":1,"name":2},{"name":3,"id":4},{"id":5,"name":6,"extra":7}]`,
		`[{"Na\u006de":1,"Name":2},{"Name":3,"Na\u006de":4},{"Name":5,"Name":6}]`,
		manyKeys(4, maxSlots+3),
	}
	for i, n := 0, len(srcs); i < n; i++ {
		srcs = append(srcs, padArray(srcs[i], `"`+strings.Repeat("z", 64)+`"`))
	}
	for name, o := range predictOptions(t) {
		for i, src := range srcs {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				t.Parallel()
				want, wantErr := rewrite(nil, []byte(src), o, predictOff)
				for _, p := range predicting {
					got, err := rewrite(nil, []byte(src), o, p)
					assert.Equal(t, string(want), string(got), p)
					assert.Equal(t, wantErr, err, p)
				}
			})
		}
	}
}

// manyKeys returns an array of n records of keys k0..k(keys-1) and Id,
// the keys rotated by one position per record.
func manyKeys(n, keys int) string {
	b := []byte{'['}
	for rec := range n {
		if rec > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Id":0`...)
		for k := range keys {
			b = fmt.Appendf(b, `,"k%d":%d`, (k+rec)%keys, k)
		}
		b = append(b, '}')
	}
	return string(append(b, ']'))
}

// FuzzRewritePredict checks that remembering keys from record to record
// never changes what Rewrite writes or the error it returns.
func FuzzRewritePredict(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, uint8(1))
	}
	for _, s := range []string{
		`[{"Id":1,"Name":"a"},{"Name":"b","Id":2},{"Id":3,"Name2":"c","Name":null}]`,
		`[{"attributes":{"type":"A"},"Id":1},{"attributes":{"type":"B"},"Na\u006de":2}]`,
		`[{"id":1,"name":2},{"id":3,"bogus":4}]`,
		`[{"Id":1},{"Id" : 2},{"Id"`,
	} {
		for mode := range uint8(16) {
			f.Add([]byte(s), mode)
		}
	}
	// Long compact record arrays, where the member loop's fast path runs:
	// the benchmark's accounts and the golden accounts compacted.
	for _, s := range [][]byte{benchAccounts(2000), compactGolden(f)} {
		for mode := range uint8(6) {
			f.Add(s, mode)
		}
		f.Add(s, uint8(2*16+1))
	}
	opts := predictOptions(f)
	names := []string{"copy", "map", "map drop nulls", "select", "reverse reject", "reject select"}

	f.Fuzz(func(t *testing.T, src []byte, mode uint8) {
		o := opts[names[int(mode)%len(names)]]
		o.MaxOutput, o.MaxDepth = int(mode/16)*64-1, 1000
		want, wantErr := rewrite([]byte("pre"), src, o, predictOff)
		for _, p := range predicting {
			got, err := rewrite([]byte("pre"), src, o, p)
			assert.Equal(t, string(want), string(got), p)
			assert.Equal(t, wantErr, err, p)
		}
	})
}
