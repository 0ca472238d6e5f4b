package sfdc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	seen := make(map[string]bool)
	for range 1000 {
		id := NewID("0F7")
		assert.Len(t, id, 18)
		assert.True(t, strings.HasPrefix(id, "0F7"), id)
		assert.True(t, ValidID(id), id)
		assert.False(t, seen[id], "ids do not repeat")
		seen[id] = true
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		id   string
		want bool
	}{
		{desc: "18 characters", id: "001000000000001AAA", want: true},
		{desc: "15 characters", id: "001000000000001", want: true},
		{desc: "16 characters", id: "0010000000000011"},
		{desc: "empty", id: ""},
		{desc: "a symbol", id: "001000000000-01AAA"},
		{desc: "beyond ASCII", id: "00100000000001ÄAA"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ValidID(tt.id))
		})
	}
}
