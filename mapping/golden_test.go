package mapping

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// accountFields are the account columns of the sandbox and of the describe
// the data upstream answers, in order.
func accountFields() []string {
	return []string{
		"Id", "Name", "External_Id__c", "SicDesc", "AccountSource", "Site", "Rating",
		"Description", "TickerSymbol", "Ownership", "NumberOfEmployees", "BillingCountry",
		"BillingPostalCode", "BillingState", "BillingCity", "BillingStreet", "ParentId", "Type",
		"Total_Assets__c", "PhotoUrl", "Website", "AccountNumber", "Fax", "Phone",
	}
}

// legacyAccountMap is the v1 map of the original service: lower-case names
// without word boundaries (externalid, sicdesc, ...).
func legacyAccountMap(t testing.TB) *KeyMap {
	pairs := make(map[string]string)
	for _, f := range accountFields() {
		pairs[f] = strings.ToLower(Derive(f))
	}
	return mustMap(t, pairs)
}

func TestGoldenAccounts(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("testdata", "accounts.json"))
	require.NoError(t, err)
	derived, err := DeriveKeyMap(accountFields())
	require.NoError(t, err)

	tests := []struct {
		desc   string
		golden string
		opts   Options
	}{
		{desc: "v1 selects Id and Name with legacy names", golden: "accounts_v1.golden.json",
			opts: Options{Map: legacyAccountMap(t), Select: NewFieldSet("Id", "Name"), DropNulls: true}},
		{desc: "v2 derived names, nulls dropped", golden: "accounts_v2.golden.json",
			opts: Options{Map: derived, DropNulls: true}},
		{desc: "v3 derived names, nulls kept", golden: "accounts_v3.golden.json",
			opts: Options{Map: derived}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := Rewrite(nil, src, tt.opts)
			require.NoError(t, err)
			path := filepath.Join("testdata", tt.golden)
			if *update {
				var pretty bytes.Buffer
				require.NoError(t, json.Indent(&pretty, got, "", "  "))
				pretty.WriteByte('\n')
				require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
			// Compacting keeps number text and escapes, so this also checks
			// that they survived byte for byte.
			var compact bytes.Buffer
			require.NoError(t, json.Compact(&compact, want))
			assert.Equal(t, compact.String(), string(got))
		})
	}
}
