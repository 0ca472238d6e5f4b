package messages

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/envelope"
)

// FuzzParse checks that any body is either accepted with both members
// within their limits, exactly as encoding/json reads them, or refused with
// a coded 400.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"name":"Ann","message":"Hello"}`, `{"name":"","message":"x"}`, `{"name":"a","message":"b","x":1}`,
		`{"name":1}`, `[]`, `null`, `{"name":"a","message":"b"} x`, `{"name":"\u00e9","message":"\ud800"}`, ``, `{`,
	} {
		f.Add([]byte(s))
	}
	opts := Options{MaxNameChars: 5, MaxMessageChars: 8}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := parse(body, opts)
		if err != nil {
			var e *envelope.Error
			require.True(t, errors.As(err, &e))
			require.Contains(t, []string{envelope.JSONSerializationFailed, envelope.ParameterInvalid}, e.ID)
			return
		}
		require.NotEmpty(t, in.name)
		require.LessOrEqual(t, utf8.RuneCountInString(in.name), 5)
		require.LessOrEqual(t, utf8.RuneCountInString(in.message), 8)
		var std struct{ Name, Message string }
		require.NoError(t, json.Unmarshal(body, &std))
		require.Equal(t, std.Name, in.name)
		require.Equal(t, std.Message, in.message)
	})
}
