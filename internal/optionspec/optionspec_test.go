package optionspec_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/optionspec"
)

type options struct {
	Mode   string `json:"mode,omitempty" flag:"mode" enum:"fast,slow" default:"fast" help:"how"`
	Quiet  bool   `json:"quiet,omitempty" flag:"quiet" help:"say less"`
	Source string `json:"-"`
	Plain  int
}

// TestOf: the fields with a json name are options, named by their tags, in order.
func TestOf(t *testing.T) {
	assert.Equal(t, []optionspec.Option{
		{Field: "Mode", JSON: "mode", Flag: "mode", Enum: []string{"fast", "slow"}, Default: "fast", Help: "how"},
		{Field: "Quiet", JSON: "quiet", Flag: "quiet", Help: "say less"},
	}, optionspec.Of[options]())
}

// TestErrors: a misspelt value is an *Error naming the option by its front-door names and
// the nearest value; Errors finds each *Error errors.Join joins.
func TestErrors(t *testing.T) {
	list := optionspec.Of[options]()
	errs := optionspec.CheckEnums(options{Mode: "slw"}, list)
	errs = append(errs, optionspec.ErrorOf(list, "Quiet", "true", "goes with mode slow"))
	got := optionspec.Errors(errors.Join(errs...))
	require.Len(t, got, 2)
	assert.EqualError(t, got[0], `option mode (--mode): "slw" is not one of fast, slow (did you mean "slow"?)`)
	assert.EqualError(t, got[1], `option quiet (--quiet): goes with mode slow`)
	assert.Empty(t, optionspec.CheckEnums(options{}, list), `"" is the default`)
	assert.Nil(t, optionspec.Errors(errors.New("not joined")))
	assert.Panics(t, func() { _ = optionspec.ErrorOf(list, "Plain", "1", "") }, "a field without an option is a bug")
}
