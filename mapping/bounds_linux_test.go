package mapping

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/mapping/mappingtest"
)

// guarded maps room for max bytes followed by an unmapped page and returns
// a function giving slices of length n (up to max) whose capacity ends
// where that page begins: a read or write past their capacity faults and
// ends the test binary.
func guarded(t *testing.T, max int) func(n int) []byte {
	page := os.Getpagesize()
	size := (max + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, size+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, syscall.Munmap(mem)) })
	require.NoError(t, syscall.Mprotect(mem[size:], syscall.PROT_NONE))
	return func(n int) []byte { return mem[size-n : size : size] }
}

// TestMemberLoopsStayInBounds runs the member loops on record arrays that
// end where an unmapped page begins, cut at every byte of their last
// records, into outputs whose capacity ends at one, from a byte short of
// what the answer needs to more than the loops' slack beyond it: the loops
// read and write past the runs they copy, and must do so only within what
// they checked.
func TestMemberLoopsStayInBounds(t *testing.T) {
	t.Parallel()
	km, err := DeriveKeyMap(accountFields())
	require.NoError(t, err)
	docs := [][]byte{mappingtest.Records(4), []byte(variedRecords(6, "", 0))}
	srcAt, dstAt := guarded(t, 1<<14), guarded(t, 1<<14)
	for _, o := range []Options{{Map: km, DropNulls: true, MaxOutput: -1}, {MaxOutput: -1}} {
		for _, doc := range docs {
			for cut := len(doc); cut > len(doc)-900; cut-- {
				src := srcAt(cut)
				copy(src, doc)
				want, wantErr := rewrite(nil, src, o, predictOff)
				for _, p := range predicting {
					for extra := -1; extra <= 2*moveSlack; extra += 3 {
						dst := dstAt(max(0, len(want)+extra))[:0]
						got, err := rewrite(dst, src, o, p)
						require.Equal(t, wantErr, err)
						require.Equal(t, string(want), string(got))
					}
				}
			}
		}
	}
}
