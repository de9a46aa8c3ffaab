package fbc

import "maps"

// Without returns a catalog holding c's packages except the named ones. Packages are shared
// with c, not copied (neither is modified once loaded). catalog extract uses it when several
// catalogs hold a package: the snapshot of only one of them may keep it, as a render that
// loads two catalogs defining one package refuses them.
func Without(c *Catalog, names ...string) *Catalog {
	if c == nil {
		return nil
	}
	out := &Catalog{packages: maps.Clone(c.packages), ignored: c.ignored}
	for _, n := range names {
		delete(out.packages, n)
	}
	return out
}
