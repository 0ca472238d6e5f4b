package accounts

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

func TestAppendFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   float64
		want string
	}{
		{desc: "integral", in: 5600000000, want: "5600000000"},
		{desc: "fraction", in: 180000000.75, want: "180000000.75"},
		{desc: "zero", in: 0, want: "0"},
		{desc: "negative", in: -12.5, want: "-12.5"},
		{desc: "tiny", in: 1e-7, want: "1e-7"},
		{desc: "huge", in: 1e21, want: "1e+21"},
		{desc: "not a number", in: math.NaN(), want: "null"},
		{desc: "infinite", in: math.Inf(-1), want: "null"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(appendFloat(nil, tt.in)))
		})
	}
}

func TestParseFields(t *testing.T) {
	t.Parallel()
	s := newStore(nil)
	tests := []struct {
		desc    string
		body    string
		want    map[string]any
		wantErr string
	}{
		{desc: "types coerced", body: `{"Name":"A","NumberOfEmployees":"12","Total_Assets__c":"3.5","Phone":5551234}`,
			want: map[string]any{"Name": "A", "NumberOfEmployees": int64(12), "Total_Assets__c": 3.5, "Phone": "5551234"}},
		{desc: "names fold case, unknown and Id ignored", body: `{"billingCITY":"Oslo","Nope":1,"Id":"001000000000000AAA"}`,
			want: map[string]any{"BillingCity": "Oslo"}},
		{desc: "null clears", body: `{"Fax":null,"NumberOfEmployees":null}`,
			want: map[string]any{"Fax": nil, "NumberOfEmployees": nil}},
		{desc: "integral float employees", body: `{"NumberOfEmployees":1e3}`, want: map[string]any{"NumberOfEmployees": int64(1000)}},
		{desc: "boolean text", body: `{"Site":true}`, want: map[string]any{"Site": "true"}},
		{desc: "empty object", body: `{}`, want: map[string]any{}},
		{desc: "array body", body: `[]`, wantErr: "JSON object"},
		{desc: "null body", body: `null`, wantErr: "JSON object"},
		{desc: "broken JSON", body: `{"Name":`, wantErr: "JSON object"},
		{desc: "array value", body: `{"Name":["a"]}`, wantErr: "Name"},
		{desc: "boolean employees", body: `{"NumberOfEmployees":true}`, wantErr: "integer"},
		{desc: "infinite assets", body: `{"Total_Assets__c":"Inf"}`, wantErr: "number"},
		{desc: "too long phone", body: `{"Phone":"` + strings.Repeat("5", 41) + `"}`, wantErr: "40"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			vals, err := s.parseFields([]byte(tt.body))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			got := make(map[string]any)
			for _, v := range vals {
				got[s.fields[v.index].Name] = v.value
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, 1, -1.5, 1e-7, 1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		out := appendFloat(nil, x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			assert.Equal(t, "null", string(out))
			return
		}
		want, err := json.Marshal(x)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(out), "formats as encoding/json does")
	})
}

func FuzzParseFields(f *testing.F) {
	for _, s := range []string{`{}`, `{"Name":"A","NumberOfEmployees":"12"}`, `{"Total_Assets__c":1e400}`,
		`{"Phone":{"a":1}}`, `[]`, `null`, `{"NumberOfEmployees":9007199254740993}`} {
		f.Add(s)
	}
	s := newStore(nil)
	f.Fuzz(func(t *testing.T, body string) {
		vals, err := s.parseFields([]byte(body))
		if err != nil {
			return
		}
		for _, v := range vals {
			field := s.fields[v.index]
			require.NotEqual(t, "Id", field.Name, "the id is never written from a body")
			switch v.value.(type) {
			case nil:
			case int64:
				assert.Equal(t, "INTEGER", sfdc.ColumnType(field.Type), field.Name)
			case float64:
				assert.Equal(t, "REAL", sfdc.ColumnType(field.Type), field.Name)
			case string:
				assert.Equal(t, "TEXT", sfdc.ColumnType(field.Type), field.Name)
			default:
				t.Fatalf("field %s: unexpected %T", field.Name, v.value)
			}
		}
	})
}
