package mapping

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rewrite counts a top-level array's elements in its own pass, with
// or without key prediction.
func TestRewriteCountsElements(t *testing.T) {
	t.Parallel()
	km, err := NewKeyMap(map[string]string{"Id": "id"})
	require.NoError(t, err)
	tests := []struct {
		desc    string
		src     string
		want    int
		wantErr bool
	}{
		{desc: "records", src: `[{"Id":1},{"Id":2,"x":[1,2,3]},{"Id":3}]`, want: 3},
		{desc: "spaces", src: ` [ 1 , [2, 3] , {"a":[4]} ] `, want: 3},
		{desc: "empty array", src: `[]`, want: 0},
		{desc: "nested arrays do not count", src: `[[1,2,3]]`, want: 1},
		{desc: "an object", src: `{"a":[1,2]}`, want: -1},
		{desc: "a scalar", src: `"x"`, want: -1},
		{desc: "invalid", src: `[1,2,x]`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			for _, predict := range []prediction{predictOff, predictOn, predictGo} {
				_, n, err := rewriteCount(nil, []byte(tt.src), Options{Map: km}, predict)
				if tt.wantErr {
					require.Error(t, err)
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, tt.want, n, "predict %v", predict)
			}
		})
	}
}
