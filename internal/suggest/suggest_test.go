package suggest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/suggest"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"OperandRequets", "OperandRequests", 1},
		{"chanel", "channel", 1},
		{"OperandRegistery", "OperandRegistry", 1},
		{"ab", "ba", 1}, // a swap is one edit
		{"kitten", "sitting", 3},
		{"", "abc", 3},
	} {
		assert.Equal(t, tc.want, suggest.Distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	kinds := []string{"OperandRegistry", "OperandConfig", "OperandRequest", "OperandBindInfo"}
	for _, tc := range []struct {
		name, word string
		candidates []string
		want       string
		ok         bool
	}{
		{"one edit", "OperandRequets", kinds, "OperandRequest", true},
		{"case does not count", "operandrequest", kinds, "OperandRequest", true},
		{"two edits", "OperandBindInf0o", kinds, "OperandBindInfo", true},
		{"three edits is not a typo", "OperandReqxxxt", kinds, "", false},
		{"the word itself", "OperandConfig", kinds, "", false},
		{"short words need one edit", "nam", []string{"name", "scope"}, "name", true},
		{"short words: two edits are too many", "nx", []string{"name"}, "", false},
		{"a key", "chanel", []string{"name", "channel", "packageName"}, "channel", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := suggest.Closest(tc.word, tc.candidates)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, tc.want, got)
			}
		})
	}
	assert.Equal(t, ` (did you mean "channel"?)`, suggest.DidYouMean("chanel", []string{"channel"}))
	assert.Equal(t, "", suggest.DidYouMean("zzz", []string{"channel"}))
}
