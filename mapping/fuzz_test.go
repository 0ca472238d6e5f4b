package mapping

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fuzzSeeds(f *testing.F) [][]byte {
	golden, err := os.ReadFile(filepath.Join("testdata", "accounts.json"))
	require.NoError(f, err)
	seeds := [][]byte{golden}
	for _, s := range []string{
		`{}`, `[]`, `null`, `0`, `-0.0e+5`, `"x"`, `[{"Id":1,"Name":null}]`,
		`{"Na\u006de":{"Type":[1,{"Id":null}]}}`, `[[{"Total_Assets__c":12345678901234567890}]]`,
		`{"a":1,}`, `[1 2]`, "\"\xff\"", "\"\x01\"", `{"\ud83d\ude00":"\ud800"}`, `01`, `[`, `{"a"`,
		`[{"id":1,"totalAssets":2}]`, ` { "attributes" : { "type" : "Account" } } `,
	} {
		seeds = append(seeds, []byte(s))
	}
	// Records cut short after a key the member loops do not remember, of
	// lengths around maxWordKey and the loops' margin (maxWordKey+16), at
	// its colon or in the value's first bytes: the loops must leave them
	// to the general path, not read past the input.
	for _, n := range []int{maxWordKey - 3, maxWordKey - 2, maxWordKey - 1, maxWordKey + 13, maxWordKey + 14, maxWordKey + 15, 60} {
		for _, tail := range []string{`":`, `":"`, `":1`, `":n`, `"`} {
			seeds = append(seeds, []byte(`[{"a":1,"`+strings.Repeat("b", n)+tail))
		}
	}
	return seeds
}

// FuzzRewrite checks that Rewrite never panics, accepts exactly the valid
// UTF-8 JSON documents, writes valid JSON, and without options only drops
// whitespace.
func FuzzRewrite(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		for _, mode := range []uint8{0, 1, 6, 15, 16, 48, 51, 64, 72} {
			f.Add(s, mode)
		}
	}
	// Record arrays long enough for the member loop, valid and with an
	// invalid value in a record it takes: what it accepts is checked
	// against encoding/json too.
	for i, bad := range append([]string{""}, invalidValues...) {
		for _, mode := range []uint8{0, 1, 3} {
			f.Add([]byte(variedRecords(8, bad, i)), mode)
		}
	}
	km, err := DeriveKeyMap(accountFields())
	require.NoError(f, err)

	f.Fuzz(func(t *testing.T, src []byte, mode uint8) {
		opts := Options{MaxOutput: -1, MaxDepth: 1000}
		if mode&1 != 0 {
			opts.Map = km
		}
		if mode&2 != 0 {
			opts.DropNulls = true
		}
		if mode&4 != 0 {
			opts.Select = NewFieldSet("Id", "Name", "attributes")
		}
		if mode&8 != 0 {
			opts.Map, opts.RejectUnknown = km.Reverse(), true
		}
		if mode&16 != 0 {
			// Typed records: Account records use km, others none.
			opts.Types = func(typ []byte) *KeyMap {
				if string(typ) == "Account" {
					return km
				}
				return nil
			}
		}
		if mode&32 != 0 {
			// Link members replaced, or dropped when they are not strings.
			opts.Links = &Links{Keys: NewFieldSet("url", "nextRecordsUrl"), Value: func(dst []byte, _ string, raw []byte) ([]byte, bool, error) {
				if len(raw) > 0 && raw[0] == '"' {
					return append(dst, `"/gateway"`...), true, nil
				}
				return dst, false, nil
			}}
		}
		if mode&64 != 0 {
			opts.RejectDuplicates = true
		}
		out, err := Rewrite([]byte("pre"), src, opts)

		var syntax *SyntaxError
		var unknown *UnknownFieldError
		var dup *DuplicateFieldError
		switch {
		case err == nil:
			require.True(t, bytes.HasPrefix(out, []byte("pre")))
			assert.True(t, json.Valid(out[3:]), "output %q", out)
			assert.True(t, json.Valid(src) && utf8.Valid(src), "accepted invalid input %q", src)
			if mode == 0 {
				var compact bytes.Buffer
				require.NoError(t, json.Compact(&compact, src))
				assert.Equal(t, compact.String(), string(out[3:]))
			}
		case errors.As(err, &syntax):
			assert.Equal(t, "pre", string(out))
			assert.False(t, json.Valid(src) && utf8.Valid(src), "rejected valid input %q: %v", src, err)
		case errors.As(err, &unknown):
			assert.True(t, opts.RejectUnknown && opts.Types == nil)
		case errors.As(err, &dup):
			assert.True(t, opts.RejectDuplicates)
			assert.Equal(t, "pre", string(out))
			opts.RejectDuplicates = false
			_, err := Rewrite(nil, src, opts)
			assert.NoError(t, err, "only the duplicate was refused")
		default:
			assert.ErrorIs(t, err, ErrTooDeep)
		}
	})
}

// FuzzRoundTrip checks that mapping a document and mapping it back gives
// the document again, in compact form.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	km, err := DeriveKeyMap(append(accountFields(), "acme__Credit_Score__c", "Parent__r"))
	require.NoError(f, err)
	opts := Options{MaxOutput: -1, MaxDepth: 1000}

	f.Fuzz(func(t *testing.T, src []byte) {
		base, err := Rewrite(nil, src, opts)
		if err != nil {
			t.Skip("not valid JSON")
		}
		// Keys already in exposed form, and escaped keys, do not come back
		// byte for byte: "Na\u006de" maps to name and back to Name.
		if bytes.IndexByte(src, '\\') >= 0 {
			t.Skip("escapes")
		}
		for _, exposed := range km.Reverse().Fields() {
			if bytes.Contains(src, []byte(`"`+exposed+`"`)) {
				t.Skip("exposed name in input")
			}
		}

		fwdOpts := opts
		fwdOpts.Map = km
		fwdOpts.DropNulls = !bytes.Contains(src, []byte("null"))
		mapped, err := Rewrite(nil, src, fwdOpts)
		require.NoError(t, err)

		backOpts := opts
		backOpts.Map = km.Reverse()
		back, err := Rewrite(nil, mapped, backOpts)
		require.NoError(t, err)
		assert.Equal(t, string(base), string(back))
	})
}
