package fbc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

func TestWithoutLeavesTheCatalogAlone(t *testing.T) {
	c, err := fbc.Load(refdata.Testdata(t, "catalogs/community"))
	require.NoError(t, err)
	all := c.PackageNames()
	less := fbc.Without(c, "kube-green", "not-there")
	assert.NotContains(t, less.PackageNames(), "kube-green")
	assert.Len(t, less.PackageNames(), len(all)-1)
	assert.Equal(t, all, c.PackageNames(), "the original keeps every package")
	p, ok := less.Package("nfs-provisioner-operator")
	require.True(t, ok)
	q, _ := c.Package("nfs-provisioner-operator")
	assert.Same(t, q, p)
}
