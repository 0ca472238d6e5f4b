package mapping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compactGolden is testdata/accounts.json without insignificant space.
func compactGolden(t testing.TB) []byte {
	src, err := os.ReadFile(filepath.Join("testdata", "accounts.json"))
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, src))
	return b.Bytes()
}

// TestGoldenAccountsCompact runs the golden cases on the compact input,
// where keys are predicted and most members take the fast path, and with
// prediction off: both must give the golden documents.
func TestGoldenAccountsCompact(t *testing.T) {
	t.Parallel()
	src := compactGolden(t)
	derived, err := DeriveKeyMap(accountFields())
	require.NoError(t, err)
	tests := []struct {
		desc   string
		golden string
		opts   Options
	}{
		{desc: "v1", golden: "accounts_v1.golden.json", opts: Options{Map: legacyAccountMap(t), Select: NewFieldSet("Id", "Name"), DropNulls: true}},
		{desc: "v2", golden: "accounts_v2.golden.json", opts: Options{Map: derived, DropNulls: true}},
		{desc: "v3", golden: "accounts_v3.golden.json", opts: Options{Map: derived}},
	}
	for _, tt := range tests {
		for _, predict := range []prediction{predictOff, predictOn, predictGo} {
			t.Run(fmt.Sprintf("%s/predict=%v", tt.desc, predict), func(t *testing.T) {
				t.Parallel()
				want, err := os.ReadFile(filepath.Join("testdata", tt.golden))
				require.NoError(t, err)
				var compact bytes.Buffer
				require.NoError(t, json.Compact(&compact, want))
				got, err := rewrite([]byte("pre"), src, tt.opts, predict)
				require.NoError(t, err)
				assert.Equal(t, "pre"+compact.String(), string(got))
			})
		}
	}
}

// TestRewritePredictedOutputLimit checks that ErrTooLarge comes at the
// same point with and without prediction: for every output limit on the
// whole document, and on documents cut after each comma of the second
// record and ended with bad JSON, where a value written past the limit
// would turn ErrTooLarge into a syntax error, for the limits near the
// output written up to the cut.
func TestRewritePredictedOutputLimit(t *testing.T) {
	t.Parallel()
	derived, err := DeriveKeyMap(accountFields())
	require.NoError(t, err)
	src := benchAccounts(2000)
	check := func(doc []byte, limit int) {
		opts := Options{Map: derived, DropNulls: true, MaxOutput: limit}
		want, wantErr := rewrite([]byte("pre"), doc, opts, predictOff)
		for _, p := range predicting {
			got, err := rewrite([]byte("pre"), doc, opts, p)
			require.Equal(t, wantErr, err, "limit %d on %q, prediction %d", limit, doc, p)
			require.Equal(t, string(want), string(got), "limit %d, prediction %d", limit, p)
		}
	}
	full, err := rewrite(nil, src, Options{Map: derived, DropNulls: true, MaxOutput: -1}, predictOff)
	require.NoError(t, err)
	for limit := 1; limit <= len(full)+2; limit++ {
		check(src, limit)
	}
	second := bytes.Index(src, []byte("},{")) + 2
	third := second + bytes.Index(src[second:], []byte("},{"))
	for i := second; i < third; i++ {
		if src[i] != ',' {
			continue
		}
		doc := append(src[:i+1:i+1], strings.Repeat(" ", 64)+"}"...)
		for limit := max(1, i-400); limit <= i+2; limit++ {
			check(doc, limit)
		}
	}
}
