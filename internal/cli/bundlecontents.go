package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// defaultCacheDir is where pulled bundle contents are cached: the user's cache folder.
func defaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "odlm-render", "bundle-contents")
}

// bundleContents applies --bundle-contents: drop removes every bundle's contents; pull reads
// the images of the channel heads that have none (the bundles OLM installs once converged,
// whose CRDs a render checks against; older bundles matter only for upgrade paths); keep
// says which heads have none.
func bundleContents(ctx context.Context, f extractFlags, cat *catalog.Catalog, rewrites []image.Rewrite, stderr io.Writer, warn func(string)) error {
	if f.contents == contentsDrop {
		for _, pn := range cat.PackageNames() {
			p, _ := cat.Package(pn)
			for _, b := range p.Bundles {
				b.Contents = nil
			}
		}
		return nil
	}
	missing := fbc.HeadsWithoutContents(cat)
	switch {
	case len(missing) == 0:
		return nil
	case f.contents == contentsKeep:
		names := make([]string, 0, len(missing))
		for _, b := range missing {
			names = append(names, b.Name)
		}
		if len(names) > 8 {
			names = append(names[:8], fmt.Sprintf("and %d more", len(names)-8))
		}
		warn(fmt.Sprintf("%d channel heads carry no contents (the catalog has their CSV metadata only): %s; render cannot check the custom resources of their kinds against their CRDs (--bundle-contents pull reads them from the bundle images)",
			len(missing), strings.Join(names, ", ")))
		return nil
	}
	return pullContents(ctx, f, missing, rewrites, stderr, warn)
}

// pullContents reads the bundle images, pullWorkers at a time. Every failure is reported,
// and any failure is the command's error (nothing is written).
func pullContents(ctx context.Context, f extractFlags, bundles []*catalog.Bundle, rewrites []image.Rewrite, stderr io.Writer, warn func(string)) error {
	if err := image.CheckCacheDir(f.cacheDir); err != nil {
		return err
	}
	puller := &image.BundlePuller{
		Options:  image.Options{Timeout: f.timeout, Warn: warn},
		Rewrites: rewrites,
		CacheDir: f.cacheDir,
	}
	terminal := isTerminal(stderr)
	var (
		mu   sync.Mutex
		errs []error
		done int
	)
	next := make(chan *catalog.Bundle)
	var wg sync.WaitGroup
	for range min(pullWorkers, len(bundles)) {
		wg.Go(func() {
			for b := range next {
				if b.Image == "" {
					mu.Lock()
					errs = append(errs, fmt.Errorf("bundle %s (package %s): no image to read its contents from", b.Name, b.Package))
					mu.Unlock()
					continue
				}
				c, info, err := puller.Pull(ctx, b.Image)
				mu.Lock()
				done++
				if err != nil {
					errs = append(errs, fmt.Errorf("bundle %s (package %s): %w", b.Name, b.Package, err))
				} else {
					b.Contents = c
				}
				if terminal {
					how := megabytes(info.Bytes)
					if info.Cached {
						how = "cached"
					}
					status := how
					if err != nil {
						status = "failed"
					}
					fmt.Fprintf(stderr, "odlm-render: bundle contents %d/%d: %s (%s) %s\n", done, len(bundles), b.Name, info.Source, status)
				}
				mu.Unlock()
			}
		})
	}
	for _, b := range bundles {
		next <- b
	}
	close(next)
	wg.Wait()
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// isTerminal reports whether w is a terminal (progress lines are for people).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
