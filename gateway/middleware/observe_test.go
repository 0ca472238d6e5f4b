package middleware

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStatusText(t *testing.T) {
	t.Parallel()
	for _, status := range []int{200, 201, 204, 100, 299, 404, 499, 503, 0, 1000} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, strconv.Itoa(status), statusText(status))
		})
	}
}
