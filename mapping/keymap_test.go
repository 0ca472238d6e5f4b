package mapping

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewKeyMapErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc       string
		pairs      map[string]string
		collisions []CollisionError
		invalid    bool
	}{
		{
			desc:       "two internal names, one exposed name",
			pairs:      map[string]string{"Name": "name", "Name__c": "name", "Id": "id"},
			collisions: []CollisionError{{Exposed: "name", Internal: []string{"Name", "Name__c"}}},
		},
		{
			desc:       "three claimants are all named",
			pairs:      map[string]string{"C": "x", "A": "x", "B": "x"},
			collisions: []CollisionError{{Exposed: "x", Internal: []string{"A", "B", "C"}}},
		},
		{
			desc:       "exposed name is another entry's internal name",
			pairs:      map[string]string{"A": "B", "B": "C"},
			collisions: []CollisionError{{Exposed: "B", Internal: []string{"A", "B"}}},
		},
		{
			desc:  "swap is ambiguous both ways",
			pairs: map[string]string{"A": "B", "B": "A"},
			collisions: []CollisionError{
				{Exposed: "A", Internal: []string{"A", "B"}},
				{Exposed: "B", Internal: []string{"A", "B"}},
			},
		},
		{desc: "empty internal name", pairs: map[string]string{"": "x"}, invalid: true},
		{desc: "empty exposed name", pairs: map[string]string{"X": ""}, invalid: true},
		{desc: "invalid UTF-8 name", pairs: map[string]string{"X": "\xff"}, invalid: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			km, err := NewKeyMap(tt.pairs)
			require.Error(t, err)
			assert.Nil(t, km)
			assert.Equal(t, tt.invalid, errors.Is(err, ErrInvalidName))
			var got []CollisionError
			if joined, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range joined.Unwrap() {
					var ce *CollisionError
					if errors.As(e, &ce) {
						got = append(got, *ce)
					}
				}
			}
			assert.Equal(t, tt.collisions, got)
		})
	}
}

func TestNewKeyMapAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		pairs map[string]string
	}{
		{desc: "nil map", pairs: nil},
		{desc: "identity entries", pairs: map[string]string{"Id": "Id", "name": "name"}},
		{desc: "legacy lower-case names", pairs: map[string]string{"Id": "id", "Name": "name", "SicDesc": "sicdesc"}},
		{desc: "chain without reuse", pairs: map[string]string{"A": "b", "B": "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			km, err := NewKeyMap(tt.pairs)
			require.NoError(t, err)
			assert.Equal(t, len(tt.pairs), km.Len())
			for internal, exposed := range tt.pairs {
				got, ok := km.Exposed(internal)
				assert.True(t, ok)
				assert.Equal(t, exposed, got)
				back, ok := km.Internal(exposed)
				assert.True(t, ok)
				assert.Equal(t, internal, back)
			}
		})
	}
}

func TestKeyMapAccessors(t *testing.T) {
	t.Parallel()
	km, err := DeriveKeyMap([]string{"Name", "Id", "Total_Assets__c", "Name"})
	require.NoError(t, err)

	assert.Equal(t, 3, km.Len())
	assert.Equal(t, []string{"Name", "Id", "Total_Assets__c"}, km.Fields(), "declaration order, repeats once")
	assert.Equal(t, map[string]string{"Name": "name", "Id": "id", "Total_Assets__c": "totalAssets"}, km.Pairs())

	rev := km.Reverse()
	assert.Same(t, rev, km.Reverse(), "reverse is built once")
	assert.Same(t, km, rev.Reverse())
	assert.Equal(t, []string{"name", "id", "totalAssets"}, rev.Fields())
	got, ok := rev.Exposed("totalAssets")
	assert.True(t, ok)
	assert.Equal(t, "Total_Assets__c", got)

	_, ok = km.Exposed("totalAssets")
	assert.False(t, ok)
	_, ok = km.Internal("Total_Assets__c")
	assert.False(t, ok)

	pairs := km.Pairs()
	pairs["Id"] = "changed"
	fields := km.Fields()
	fields[0] = "changed"
	exposed, _ := km.Exposed("Id")
	assert.Equal(t, "id", exposed, "Pairs returns a copy")
	assert.Equal(t, "Name", km.Fields()[0], "Fields returns a copy")

	sorted, err := NewKeyMap(map[string]string{"b": "B", "a": "A", "c": "C"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, sorted.Fields())
}

func TestKeyMapNil(t *testing.T) {
	t.Parallel()
	var km *KeyMap
	assert.Equal(t, 0, km.Len())
	assert.Nil(t, km.Reverse())
	assert.Nil(t, km.Fields())
	assert.Empty(t, km.Pairs())
	_, ok := km.Exposed("x")
	assert.False(t, ok)
	_, ok = km.Internal("x")
	assert.False(t, ok)
}

func TestDeriveKeyMapCollision(t *testing.T) {
	t.Parallel()
	_, err := DeriveKeyMap([]string{"Score__c", "Score", "Id"})
	var ce *CollisionError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "score", ce.Exposed)
	assert.Equal(t, []string{"Score", "Score__c"}, ce.Internal)
	assert.Contains(t, err.Error(), `"Score", "Score__c"`)

	_, err = DeriveKeyMap([]string{"__c"})
	assert.ErrorIs(t, err, ErrInvalidName)
}

func TestKeyMapConcurrentUse(t *testing.T) {
	t.Parallel()
	km, err := DeriveKeyMap([]string{"Id", "Name", "Total_Assets__c"})
	require.NoError(t, err)
	src := []byte(`[{"Id":"1","Name":"a","Total_Assets__c":1.5}]`)
	want := `[{"id":"1","name":"a","totalAssets":1.5}]`

	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Go(func() {
			out, err := Rewrite(nil, src, Options{Map: km})
			if err == nil {
				results[i] = string(out)
			}
			_, _ = km.Reverse().Internal("name")
		})
	}
	wg.Wait()
	for _, got := range results {
		assert.Equal(t, want, got)
	}
}
