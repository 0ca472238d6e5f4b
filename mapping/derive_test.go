package mapping

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestDerive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		internal string
		want     string
	}{
		{desc: "custom field", internal: "Total_Assets__c", want: "totalAssets"},
		{desc: "standard camel case", internal: "SicDesc", want: "sicDesc"},
		{desc: "short standard", internal: "Id", want: "id"},
		{desc: "custom external id", internal: "External_Id__c", want: "externalId"},
		{desc: "already lower", internal: "name", want: "name"},
		{desc: "many words", internal: "NumberOfEmployees", want: "numberOfEmployees"},
		{desc: "only first letter lowered", internal: "URL__c", want: "uRL"},
		{desc: "upper-case suffix dropped", internal: "Score__C", want: "score"},
		{desc: "namespaced custom field", internal: "acme__Credit_Score__c", want: "acmeCreditScore"},
		{desc: "namespace lower-cased whole", internal: "ACME__Tier__c", want: "acmeTier"},
		{desc: "namespaced relationship", internal: "acme__Parent__r", want: "acmeParentR"},
		{desc: "relationship suffix kept", internal: "Parent_Account__r", want: "parentAccountR"},
		{desc: "external object suffix kept", internal: "Order__x", want: "orderX"},
		{desc: "metadata suffix kept", internal: "Setting__mdt", want: "settingMdt"},
		{desc: "geolocation component", internal: "Location__latitude__s", want: "locationLatitudeS"},
		{desc: "digit after underscore", internal: "Field_1__c", want: "field1"},
		{desc: "leading underscore", internal: "_Foo", want: "foo"},
		{desc: "trailing underscore", internal: "Foo_", want: "foo"},
		{desc: "double underscore inside", internal: "a__b", want: "aB"},
		{desc: "triple underscore", internal: "a___b", want: "aB"},
		{desc: "lower after underscore", internal: "billing_city", want: "billingCity"},
		{desc: "empty", internal: "", want: ""},
		{desc: "only suffix", internal: "__c", want: ""},
		{desc: "only underscores", internal: "___", want: ""},
		{desc: "non-ASCII", internal: "Ärger_über__c", want: "ärgerÜber"},
		{desc: "a first letter upper case would turn into another", internal: "ϑeta_value", want: "ϑetaValue"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Derive(tt.internal))
		})
	}
}

func FuzzDerive(f *testing.F) {
	// "\xcf_\x91", "\xc8_\x80": two undecodable bytes that make ϑ, Ȁ once
	// the underscore between them is gone
	for _, s := range []string{"Total_Assets__c", "acme__X__c", "__", "_a_", "Ä__b__c", "\xff_x", "\xcf_\x91", "\xc8_\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, internal string) {
		got := Derive(internal)
		assert.NotContains(t, got, "_", "underscores are word boundaries, never output")
		if utf8.ValidString(internal) {
			assert.True(t, utf8.ValidString(got))
		}
		assert.Equal(t, got, Derive(got), "a derived name derives to itself")
		if strings.Trim(internal, "_") == "" {
			assert.Empty(t, got)
		}
	})
}
