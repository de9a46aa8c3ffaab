package fbc

import (
	"runtime"
	"testing"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// bundleObjectCatalog is the real catalog in the older shape (the reference folder's copy of
// testdata/catalogs-bundle-object/community-v4.16; t skips without it): every bundle carries
// its manifests as olm.bundle.object properties, so every bundle has contents while it
// loads.
func bundleObjectCatalog(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs-bundle-object/community-v4.16")
}

// BenchmarkBundleObjectLoad loads bundleObjectCatalog and reports what its contents cost:
// held-B/bundle is what a bundle's Contents holds while the catalog loads (packed, before
// the bundles that head no channel drop theirs), heap-B the live heap the loaded catalog
// keeps.
func BenchmarkBundleObjectLoad(b *testing.B) {
	dir := bundleObjectCatalog(b)
	b.ReportAllocs()
	var held, bundles int
	for b.Loop() {
		held, bundles = loadHeld(b, dir)
	}
	b.StopTimer()
	b.ReportMetric(float64(held)/float64(max(bundles, 1)), "held-B/bundle")
	b.ReportMetric(float64(retainedHeap(b, dir)), "heap-B")
}

// loadHeld loads the catalog dir and returns what its bundles' contents held before the
// Builder made the catalog, and how many bundles there were.
func loadHeld(b *testing.B, dir string) (held, bundles int) {
	bu := NewBuilder(LoadOptions{})
	if err := bu.AddPath(dir); err != nil {
		b.Fatal(err)
	}
	for _, p := range bu.packages {
		for _, x := range p.Bundles {
			bundles++
			held += x.Contents.heldBytes()
		}
	}
	if _, err := bu.Catalog(); err != nil {
		b.Fatal(err)
	}
	return held, bundles
}

// retainedHeap is the live heap the loaded catalog dir keeps.
func retainedHeap(b *testing.B, dir string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC() // pooled flate writers survive one
	runtime.ReadMemStats(&before)
	c, err := Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(c)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// heldBytes is the size of the manifest text a Contents holds (nil: none).
func (c *Contents) heldBytes() int {
	if c == nil {
		return 0
	}
	n := 0
	for _, p := range c.packed {
		n += len(p)
	}
	for _, raw := range c.CRDs {
		n += len(raw)
	}
	n += len(c.packedInstall)
	for _, raw := range c.Manifests {
		n += len(raw)
	}
	if c.Install != nil {
		for _, d := range c.Install.Deployments {
			n += len(d.Spec)
		}
		for k, v := range c.Install.Annotations {
			n += len(k) + len(v)
		}
	}
	return n
}
