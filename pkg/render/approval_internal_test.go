package render

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestManualPhrase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		manual []string
		n      int
		want   string
	}{
		{[]string{"a"}, 2, "a is approved manually"},
		{[]string{"a", "b"}, 3, "a, b are approved manually"},
		{[]string{"a", "b"}, 2, "all are approved manually"},
	} {
		assert.Equal(t, tc.want, manualPhrase(tc.manual, tc.n))
	}
}
