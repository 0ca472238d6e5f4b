package calllog

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A body shown beside the call log is the body the call log ships: the
// Masker of the same settings writes what the shipper prepares.
func TestMaskerWritesWhatTheShipperLogs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		fields []string
		max    int
		body   string
	}{
		{desc: "a secret member", max: 2048, body: `{"user":"ann","password":"hunter2"}`},
		{desc: "cut after masking", max: 20, body: `{"token":"abc","note":"` + strings.Repeat("é", 50) + `"}`},
		{desc: "past the queue's copy", max: 100, body: `{"secret":"s","pad":"` + strings.Repeat("x", maxCopyBytes) + `"}`},
		{desc: "configured names", fields: []string{"pin"}, max: 2048, body: "pin=1234&password=kept"},
		{desc: "nothing kept", max: -1, body: `{"a":1}`},
		{desc: "empty", max: 10, body: ""},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			s, err := NewShipper(Config{URL: "http://127.0.0.1:1/log", RedactFields: tt.fields, MaxBodyBytes: tt.max}, nil, nil, nil)
			require.NoError(t, err)
			t.Cleanup(s.client.Close)
			q := newRing(4, 1<<30)
			q.push(&Entry{Body: []byte(tt.body)})
			var it item
			s.prepare(&q.slots[q.head], &it)

			m := NewMasker(tt.fields, s.cfg.MaxBodyBytes)
			assert.Equal(t, string(it.e.Body), string(m.Append(nil, []byte(tt.body))))
			prefix := m.Append([]byte("kept:"), []byte(tt.body))
			assert.Equal(t, "kept:"+string(it.e.Body), string(prefix), "Append appends after what dst holds")
		})
	}
}
