package mapping

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/mapping/mappingtest"
)

// Values of every kind the member loops take or refuse: valid ones (plain,
// empty and long strings, past one and two 16-byte blocks, every escape,
// raw non-ASCII text, numbers with and without fraction, sign and exponent,
// literals, nested objects and arrays) and invalid ones.
var (
	validValues = []string{
		`"x"`, `""`, `"Account 1"`, `"` + strings.Repeat("a", 15) + `"`, `"` + strings.Repeat("b", 16) + `"`,
		`"` + strings.Repeat("c", 31) + `"`, `"` + strings.Repeat("d", 33) + `"`, `"` + strings.Repeat("e", 70) + `"`,
		`"Line \"two\"\n\t\/\\\b\f\r"`, `"caf\u00e9 \u00E9 \uABcd"`, "\"caf\u00e9\"", `"` + strings.Repeat("f", 14) + `\""`,
		`0`, `-0`, `12`, `-12.5`, `0.25`, `1e5`, `2E-3`, `100000000000000000000`,
		`true`, `false`, `null`, `{"a":1}`, `[1,"x"]`, `{}`,
	}
	invalidValues = []string{
		`"\u00g0"`, `"\x"`, "\"a\x01b\"", `"\u12"`, "\"\xff\"", `01`, `1.`, `-`, `-a`, `.5`, `nul`, `tru`, `falsy`, `nulL`,
		`"` + strings.Repeat("g", 20),
	}
)

// variedRecords returns a compact array of n records whose members, record
// after record under the same keys (of 1 to 48 bytes, one escaped; the
// longest past the member loops' margin, so a cut after it leaves less
// input than the key and its colon need), hold
// the valid values in turn; when bad is not empty, member m of record 5
// holds it instead.
func variedRecords(n int, bad string, m int) string {
	keys := []string{`"Id"`, `"Name"`, `"n"`, `"Total_Assets__c"`, `"Description"`, `"a_key_of_exactly_24_by"`,
		`"a_key_longer_than_the_words"`, `"Na\u006de"`, `"SicDesc"`, `"Website"`,
		`"a_key_longer_than_the_margin_of_the_member_loop"`}
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"attributes":{"type":"Account","url":%s}`, validValues[i%len(validValues)])
		for k, key := range keys {
			v := validValues[(i+7*k)%len(validValues)]
			if bad != "" && i == 5 && k == m%len(keys) {
				v = bad
			}
			b.WriteString("," + key + ":" + v)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.String()
}

// TestMemberLoopsOnVariedRecords compares the member loops with the
// general path on every kind of value, under every option set: on valid
// arrays, whole and cut at every byte of their last records, and with each
// invalid value in each member of a record the loops take.
func TestMemberLoopsOnVariedRecords(t *testing.T) {
	t.Parallel()
	var docs [][]byte
	doc := variedRecords(60, "", 0)
	for cut := len(doc); cut > len(doc)-1500; cut-- {
		docs = append(docs, []byte(doc[:cut]))
	}
	for i, bad := range invalidValues {
		for m := range 11 {
			docs = append(docs, []byte(variedRecords(8, bad, i+m)))
		}
	}
	for name, o := range predictOptions(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, src := range docs {
				want, wantErr := rewrite(nil, src, o, predictOff)
				for _, p := range predicting {
					got, err := rewrite(nil, src, o, p)
					require.Equal(t, wantErr, err, "prediction %d on %s", p, src)
					require.Equal(t, string(want), string(got), "prediction %d", p)
				}
			}
		})
	}
}

// TestMemberLoopsTakeWholeRecords keeps the comparisons above meaningful:
// once the first record's keys are known, each loop takes a whole account
// record after its attributes (escapes and \u escapes included) to the
// closing brace, so a loop that left members to the general path would
// fail here, though it would still agree with it.
func TestMemberLoopsTakeWholeRecords(t *testing.T) {
	t.Parallel()
	km, err := DeriveKeyMap(accountFields())
	require.NoError(t, err)
	for _, doc := range [][]byte{mappingtest.Records(3), benchAccounts(3 << 10)} {
		for _, p := range predicting {
			r := rewriter{src: doc, limit: -1, maxDepth: DefaultMaxDepth, m: km, dropNulls: true, predict: p}
			var ks keySlots
			r.pos = 1
			require.NoError(t, r.object(1, levelElement, &ks))
			// The second record, from its second member on.
			second := r.pos + 1
			pos := second + bytes.Index(doc[second:], []byte(`},"Id"`)) + 2
			closing := second + bytes.Index(doc[second:], []byte(`},{`))
			dst := make([]byte, 1, 4096) // as if the brace were written
			i, end, dst, closed := r.fastMembers(doc, pos, dst, ks.record[:], 1, true)
			require.True(t, closed, "prediction %d stopped at %q", p, doc[end:min(end+40, len(doc))])
			assert.Equal(t, closing, end, p)
			assert.Equal(t, bytes.Count(doc[pos:closing], []byte(`":`))+1, i, p)
			assert.Greater(t, len(dst), 1, p)
		}
	}
}
