package fbc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

// sharedCatalogs holds the big real catalogs beside the project's clone; a
// clone without it still passes (the benchmarks skip).
const sharedCatalogs = "../../../shared/catalogs"

// BenchmarkLoad loads the project's testdata catalogs (the reference folder's copy) and, when
// present, the shared community and certified catalogs. The two shared folders both define
// three packages, so they are loaded separately, and together only with a package filter
// (which must then read, and drop, everything else cheaply). Each case skips without its
// data.
func BenchmarkLoad(b *testing.B) {
	cases := []struct {
		name     string
		opts     fbc.LoadOptions
		paths    []string
		testdata bool // paths is realCatalogs, resolved in the case
	}{
		{name: "testdata", testdata: true},
		{name: "community-v4.20", paths: []string{filepath.Join(sharedCatalogs, "community-v4.20")}},
		{name: "certified-v4.20", paths: []string{filepath.Join(sharedCatalogs, "certified-v4.20")}},
		{name: "both-filtered", opts: fbc.LoadOptions{Packages: []string{"kube-green", "nvidia-network-operator"}},
			paths: []string{filepath.Join(sharedCatalogs, "community-v4.20"), filepath.Join(sharedCatalogs, "certified-v4.20")}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			if tc.testdata {
				tc.paths = []string{realCatalogs(b)}
			}
			var size int64
			for _, p := range tc.paths {
				n, err := treeSize(p)
				if err != nil {
					b.Skipf("%s absent: %v", p, err)
				}
				size += n
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				c, err := fbc.LoadWith(tc.opts, tc.paths...)
				if err != nil {
					b.Fatal(err)
				}
				if len(c.PackageNames()) == 0 {
					b.Fatal("no package")
				}
			}
		})
	}
}

// BenchmarkExtract is what catalog extract does with a catalog (load, then write its
// snapshot), with and without the related images it keeps, on the project's testdata
// catalogs (the reference folder's copy) and the shared catalogs; snapshot-B is the
// snapshot's size. Each case skips without its data.
func BenchmarkExtract(b *testing.B) {
	for _, name := range []string{"catalogs", "community-v4.20", "certified-v4.20"} {
		for _, related := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/relatedImages=%v", name, related), func(b *testing.B) {
				dir := filepath.Join(sharedCatalogs, name)
				if name == "catalogs" {
					dir = realCatalogs(b)
				}
				size, err := treeSize(dir)
				if err != nil {
					b.Skipf("%s absent: %v", dir, err)
				}
				b.SetBytes(size)
				b.ReportAllocs()
				var out countingWriter
				for b.Loop() {
					out = 0
					c, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: related}, dir)
					if err == nil {
						err = fbc.WriteSnapshot(c, &out, fbc.SnapshotMeta{})
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(out), "snapshot-B")
			})
		}
	}
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

func treeSize(root string) (int64, error) {
	var n int64
	err := filepath.WalkDir(root, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			fi, err := d.Info()
			if err != nil {
				return err
			}
			n += fi.Size()
		}
		return nil
	})
	return n, err
}

// TestSharedCatalogs checks facts about the big real catalogs when they are
// beside the clone: every community channel has exactly one head, and
// loading both folders as one catalog reports the three duplicate packages.
func TestSharedCatalogs(t *testing.T) {
	community := filepath.Join(sharedCatalogs, "community-v4.20")
	certified := filepath.Join(sharedCatalogs, "certified-v4.20")
	if _, err := os.Stat(community); err != nil {
		t.Skipf("shared catalogs absent: %v", err)
	}
	if testing.Short() {
		t.Skip("slow: reads 33 MB")
	}
	c, err := fbc.Load(community)
	if err != nil {
		t.Fatal(err)
	}
	bundles := 0
	for _, pn := range c.PackageNames() {
		p, _ := c.Package(pn)
		bundles += len(p.Bundles)
		for _, cn := range p.ChannelNames() {
			if _, err := p.HeadBundle(cn); err != nil {
				t.Error(err)
			}
		}
		for _, b := range p.Bundles {
			if _, err := b.Examples(); err != nil {
				t.Error(err)
			}
		}
	}
	if len(c.PackageNames()) != 37 || bundles != 803 {
		t.Errorf("community: %d packages, %d bundles; want 37, 803", len(c.PackageNames()), bundles)
	}
	_, err = fbc.Load(community, certified)
	if err == nil {
		t.Fatal("loading both folders must report the duplicate packages")
	}
	for _, dup := range []string{"trident-operator", "victoriametrics-operator", "visionone-containersecurity"} {
		if !strings.Contains(err.Error(), dup) {
			t.Errorf("error does not name %s: %v", dup, err)
		}
	}
}
