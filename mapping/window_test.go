package mapping

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewriteWindow(t *testing.T) {
	t.Parallel()
	km, err := NewKeyMap(map[string]string{"Id": "id"})
	require.NoError(t, err)
	tests := []struct {
		desc    string
		src     string
		w       Window
		want    string
		wantErr bool
	}{
		{desc: "within the limit: whole, as paged", src: `[{"Id":1},{"Id":2}]`, w: Window{Offset: 5, Limit: 2}, want: `[{"id":1},{"id":2}]`},
		{desc: "over the limit: the window", src: `[{"Id":1},{"Id":2},{"Id":3},{"Id":4}]`, w: Window{Offset: 1, Limit: 2}, want: `[{"id":2},{"id":3}]`},
		{desc: "window at the end", src: `[1,2,3]`, w: Window{Offset: 2, Limit: 2}, want: `[3]`},
		{desc: "window past the end", src: `[1,2,3]`, w: Window{Offset: 9, Limit: 1}, want: `[]`},
		{desc: "limit zero", src: `[1,2]`, w: Window{Limit: 0}, want: `[]`},
		{desc: "empty array", src: ` [ ] `, w: Window{Limit: 0}, want: `[]`},
		{desc: "spaces", src: ` [ 1 , 2 , 3 ] `, w: Window{Offset: 1, Limit: 1}, want: `[2]`},
		{desc: "nested arrays are not paged", src: `{"a":[1,2,3]}`, w: Window{Limit: 1}, want: `{"a":[1,2,3]}`},
		{desc: "elements of a page are arrays", src: `[[1,2,3],[4]]`, w: Window{Limit: 1}, want: `[[1,2,3]]`},
		{desc: "an invalid element outside the window still fails", src: `[1,2,x]`, w: Window{Limit: 1}, wantErr: true},
		{desc: "an unterminated array fails", src: `[1,2,3`, w: Window{Limit: 1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			for _, predict := range []bool{true, false} {
				w := tt.w
				got, err := rewrite([]byte("prefix"), []byte(tt.src), Options{Map: km, Window: &w}, predict)
				if tt.wantErr {
					require.Error(t, err)
					assert.Equal(t, "prefix", string(got), "nothing appended on error")
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, "prefix"+tt.want, string(got), "predict %v", predict)
			}
		})
	}
}

// A window past the output limit is refused like any answer.
func TestRewriteWindowOutputLimit(t *testing.T) {
	t.Parallel()
	_, err := Rewrite(nil, []byte(`["aaaa","bbbb","cccc"]`), Options{Window: &Window{Offset: 1, Limit: 2}, MaxOutput: 10})
	require.ErrorIs(t, err, ErrTooLarge)
	out, err := Rewrite(nil, []byte(`["aaaa","bbbb","cccc"]`), Options{Window: &Window{Offset: 2, Limit: 1}, MaxOutput: 10})
	require.NoError(t, err)
	assert.Equal(t, `["cccc"]`, string(out))
}
