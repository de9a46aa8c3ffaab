// Command odlm-extract is the benchmark child for odlm-render's catalog
// extract: for each catalog folder given, the same steps as `odlm-render
// catalog extract --from FOLDER [--package P]... -o FILE` (one catalog per
// folder, all kept until the end), then one JSON line of measurements.
package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/odlm-render/odlm-render/bench/internal/report"
	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

func main() {
	pkgs := flag.String("packages", "", "comma-separated packages to keep (default all)")
	out := flag.String("out", os.DevNull, "folder for the snapshots (default: discard)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			report.Fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			report.Fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	fbc.TuneGCForExtract() // as odlm-render catalog extract does
	var keep []string
	if *pkgs != "" {
		keep = strings.Split(*pkgs, ",")
	}
	start := time.Now()
	var cats []*catalog.Catalog
	packages, bundles := 0, 0
	for i, src := range flag.Args() {
		b := fbc.NewBuilder(catalog.LoadOptions{Packages: keep})
		info, err := image.Load(context.Background(), src, b, image.Options{})
		if err != nil {
			report.Fail(err)
		}
		c, err := b.Catalog()
		if err != nil {
			report.Fail(err)
		}
		target := *out
		if target != os.DevNull {
			target = filepath.Join(target, "snapshot-"+strconv.Itoa(i)+".yaml")
		}
		f, err := os.Create(target)
		if err != nil {
			report.Fail(err)
		}
		if err := fbc.WriteSnapshot(c, f, fbc.SnapshotMeta{Source: info.SnapshotSource()}); err != nil {
			report.Fail(err)
		}
		if err := f.Close(); err != nil {
			report.Fail(err)
		}
		for _, pn := range c.PackageNames() {
			p, _ := c.Package(pn)
			packages++
			bundles += len(p.Bundles)
		}
		cats = append(cats, c)
	}
	report.Print(start, packages, bundles)
	_ = cats
}
