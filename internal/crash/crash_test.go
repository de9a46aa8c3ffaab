package crash_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/crash"
)

func recovered(f func()) (e *crash.Error) {
	defer func() {
		if p := recover(); p != nil {
			e = crash.FromPanic(p)
		}
	}()
	f()
	return nil
}

func TestRuntimeErrorsKeepTheirMessageAndPlace(t *testing.T) {
	e := recovered(func() {
		var l []int
		_ = l[3]
	})
	require.NotNil(t, e)
	assert.Equal(t, "runtime error: index out of range [3] with length 0", e.What)
	assert.Contains(t, e.Where, "internal/crash_test.TestRuntimeErrorsKeepTheirMessageAndPlace")
	assert.Contains(t, e.Error(), "internal error: runtime error: index out of range")
}

func TestOtherPanicValuesAreNeverPrinted(t *testing.T) {
	e := recovered(func() { panic("password: s3cr3t") })
	require.NotNil(t, e)
	assert.Equal(t, "panic with a string value", e.What)
	assert.NotContains(t, e.Error(), "s3cr3t")
}
