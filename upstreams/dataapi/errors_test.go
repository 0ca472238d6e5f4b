package dataapi

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		body    string
		code    string
		message string
	}{
		{desc: "array", body: `[{"message":"The requested resource does not exist","errorCode":"NOT_FOUND"}]`,
			code: "NOT_FOUND", message: "The requested resource does not exist"},
		{desc: "several errors: first code, all messages",
			body: `[{"message":"a","errorCode":"X"},{"message":"b","errorCode":"Y","fields":["F1","F2"]}]`,
			code: "X", message: "a; b (fields: F1, F2)"},
		{desc: "single object", body: ` {"message":"m","errorCode":"C"} `, code: "C", message: "m"},
		{desc: "gateway fault", body: `{"fault":{"faultstring":"Invalid ApiKey","detail":{"errorcode":"steps.oauth.v2.InvalidApiKey"}}}`,
			code: "steps.oauth.v2.InvalidApiKey", message: "Invalid ApiKey"},
		{desc: "control characters are blanked", body: "[{\"message\":\"\\nSELECT Nme\\n^\\nERROR\",\"errorCode\":\"INVALID_FIELD\"}]",
			code: "INVALID_FIELD", message: "SELECT Nme ^ ERROR"},
		{desc: "empty array", body: `[]`},
		{desc: "html", body: `<html><body>Bad gateway</body></html>`},
		{desc: "wrong types", body: `[{"message":1,"errorCode":true}]`},
		{desc: "empty", body: ``},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			code, message := parseErrorBody([]byte(tt.body))
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.message, message)
		})
	}
}

func TestStatusErrorBoundsMessage(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", maxMessageLen)
	err := statusError(400, []byte(`[{"message":"`+long+`","errorCode":"MALFORMED_QUERY"}]`))
	assert.Equal(t, upstreams.KindRejected, err.Kind)
	assert.LessOrEqual(t, len(err.Message), maxMessageLen)
	assert.True(t, utf8.ValidString(err.Message))
}

func FuzzParseErrorBody(f *testing.F) {
	for _, s := range []string{
		`[{"message":"The requested resource does not exist","errorCode":"NOT_FOUND"}]`,
		`[{"message":"a","errorCode":"X"},{"message":"b","errorCode":"Y","fields":["F1"]}]`,
		`{"message":"m","errorCode":"C"}`,
		`{"fault":{"faultstring":"Invalid ApiKey","detail":{"errorcode":"E"}}}`,
		`<html>`,
		"[{\"message\":\"\xff\xfe\"}]",
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		code, message := parseErrorBody(body)
		require.True(t, utf8.ValidString(code))
		require.True(t, utf8.ValidString(message))
		require.LessOrEqual(t, len(message), maxMessageLen)
		require.LessOrEqual(t, len(code), maxCodeLen)
		for _, status := range []int{400, 404, 500, 503} {
			e := statusError(status, body)
			require.Equal(t, status, e.Status)
			require.NotEmpty(t, e.Message)
		}
	})
}
