package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// A real registry is rarely served by one catalog. IBM's foundational-services registry
// lists entries that install nothing (installMode: no-op), operators the user installs
// (userManaged) and packages other catalogs serve (Red Hat's build of Keycloak, EDB), all
// under one sourceName. So extract reads several catalogs (--from, repeatable), looks for a
// package in the catalog its entries' sourceName names when one of them is named so (else in
// all, in --from order), keeps what it finds and warns, per package, where it looked. Only
// an extract that finds none of the registries' packages fails.

// extractSource is one --from: the catalog's name, which entries' sourceName is matched
// against, and where to read it.
type extractSource struct {
	name, source string
}

func (s extractSource) String() string { return s.name + " (" + s.source + ")" }

// catalogNameRe is what a NAME= prefix of --from must look like: a CatalogSource name.
var catalogNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)

// parseSources reads the --from values: NAME=SOURCE, or SOURCE named like its snapshot
// (the folder's or file's name, the image's repository and tag). A SOURCE that exists as a
// path is never split at "=".
func parseSources(froms []string) ([]extractSource, error) {
	var out []extractSource
	for _, s := range froms {
		name, src, named := strings.Cut(s, "=")
		if _, err := os.Stat(s); err == nil || !named || !catalogNameRe.MatchString(name) {
			name, src = "", s
		}
		if src == "" {
			return nil, usageError{fmt.Errorf("--from %q: no source", s)}
		}
		if name == "" {
			kind, _, err := image.Detect(src)
			if err != nil {
				kind = image.KindFBC // the load reports it
			}
			name = snapshotName(src, kind)
		}
		for _, prev := range out {
			if prev.name == name {
				return nil, usageError{fmt.Errorf("--from %s and --from %s are both named %s: name one as NAME=SOURCE (the CatalogSource name registry entries give as sourceName)", prev.source, src, name)}
			}
		}
		out = append(out, extractSource{name: name, source: src})
	}
	return out, nil
}

// wantSet is what extract keeps: the packages registries and --package name, and for each
// where to look.
type wantSet struct {
	names       []string            // sorted; nil keeps every package
	origin      map[string][]string // what asked for each ("--package", "OperandRegistry ns/name")
	sourceNames map[string][]string // the sourceNames of a package's entries that install it
	userManaged map[string]bool     // every entry of the package is userManaged
	explicit    map[string]bool     // asked for by --package
}

// searched returns the sources to look for a package in: those its entries' sourceName
// names, else all (and all for --package).
func (w *wantSet) searched(pkg string, sources []extractSource) []int {
	if named := w.named(pkg, sources); len(named) > 0 {
		return named
	}
	return allSources(sources)
}

// named returns the sources its entries' sourceName names.
func (w *wantSet) named(pkg string, sources []extractSource) []int {
	var named []int
	for i, s := range sources {
		if !w.explicit[pkg] && slices.Contains(w.sourceNames[pkg], s.name) {
			named = append(named, i)
		}
	}
	return named
}

// packagesFor returns the packages to keep from source i (nil: all of them).
func (w *wantSet) packagesFor(i int, sources []extractSource) []string {
	var out []string
	for _, p := range w.names {
		if slices.Contains(w.searched(p, sources), i) {
			out = append(out, p)
		}
	}
	return out
}

// wantedPackages reads --package and the OperandRegistries of --registry (nil: keep all).
// Entries with installMode no-op install nothing and are skipped.
func wantedPackages(f extractFlags, stdin io.Reader) (*wantSet, error) {
	w := &wantSet{origin: map[string][]string{}, sourceNames: map[string][]string{}, userManaged: map[string]bool{}, explicit: map[string]bool{}}
	for _, p := range f.packages {
		if p == "" {
			return nil, usageError{errors.New("--package needs a package name")}
		}
		w.explicit[p] = true
		w.origin[p] = appendNew(w.origin[p], "--package")
	}
	if len(f.registries) > 0 {
		if err := w.addRegistries(f.registries, stdin); err != nil {
			return nil, err
		}
	}
	if len(w.origin) == 0 {
		return nil, nil
	}
	for p := range w.origin {
		w.names = append(w.names, p)
	}
	slices.Sort(w.names)
	return w, nil
}

func (w *wantSet) addRegistries(paths []string, stdin io.Reader) error {
	docs, err := inputs.ReadPaths(paths, stdin)
	if err != nil {
		return err
	}
	found := 0
	installed := map[string]bool{} // a package some entry has OLM install (not userManaged)
	for _, d := range docs {
		if d.Kind() != api.KindOperandRegistry || d.Group() != inputs.ODLMGroup {
			continue
		}
		found++
		ops, _ := manifest.Get(d.Map, "spec", "operators").([]any)
		for i, op := range ops {
			m, _ := op.(map[string]any)
			pn, _ := m["packageName"].(string)
			if pn == "" {
				return &manifest.SyntaxError{File: d.Source.File, Line: d.Source.LineOf(manifest.Field("spec.operators", i)),
					Msg: fmt.Sprintf("OperandRegistry %s: spec.operators[%d] has no packageName", d.Ref(), i)}
			}
			if mode, _ := m["installMode"].(string); mode == api.InstallModeNoOp {
				continue
			}
			w.origin[pn] = appendNew(w.origin[pn], d.Ref().String())
			if sn, _ := m["sourceName"].(string); sn != "" {
				w.sourceNames[pn] = appendNew(w.sourceNames[pn], sn)
			}
			if um, _ := m["userManaged"].(bool); !um {
				installed[pn] = true
			}
		}
	}
	if found == 0 {
		return fmt.Errorf("no OperandRegistry (operator.ibm.com) in %s", strings.Join(paths, ", "))
	}
	for p := range w.origin {
		w.userManaged[p] = !installed[p] && !w.explicit[p]
	}
	return nil
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// assignPackages decides which loaded catalog keeps each package (the first searched one
// that has it, in --from order) and returns each catalog without the packages another one
// keeps. Missing packages are warnings, or errors for --package; finding none of the
// packages asked for is an error.
func assignPackages(w *wantSet, sources []extractSource, cats []*catalog.Catalog, warn func(string)) ([]*catalog.Catalog, error) {
	drop := make([][]string, len(cats))
	keptBy := map[string]int{}
	if w == nil {
		for i, c := range cats {
			for _, p := range c.PackageNames() {
				if k, seen := keptBy[p]; seen {
					drop[i] = append(drop[i], p)
					warn(fmt.Sprintf("package %s is in %s and %s: kept from %s, the first --from", p, sources[k], sources[i], sources[k].name))
					continue
				}
				keptBy[p] = i
			}
		}
		return without(cats, drop), nil
	}
	var missing []string
	for _, p := range w.names {
		searched := w.searched(p, sources)
		var holders []int
		for _, i := range searched {
			if _, ok := cats[i].Package(p); ok {
				holders = append(holders, i)
			}
		}
		if len(holders) == 0 {
			missing = append(missing, p)
			continue
		}
		for _, i := range holders[1:] {
			drop[i] = append(drop[i], p)
		}
		if len(holders) > 1 {
			warn(fmt.Sprintf("package %s is in %s: kept from %s, the first --from", p, joinSources(sources, holders), sources[holders[0]].name))
		}
	}
	if err := reportMissing(w, sources, missing, warn); err != nil {
		return nil, err
	}
	return without(cats, drop), nil
}

func without(cats []*catalog.Catalog, drop [][]string) []*catalog.Catalog {
	out := make([]*catalog.Catalog, len(cats))
	for i, c := range cats {
		out[i] = fbc.Without(c, drop[i]...)
	}
	return out
}

func allSources(sources []extractSource) []int {
	all := make([]int, len(sources))
	for i := range sources {
		all[i] = i
	}
	return all
}

func joinSources(sources []extractSource, idx []int) string {
	names := make([]string, 0, len(idx))
	for _, i := range idx {
		names = append(names, sources[i].String())
	}
	return strings.Join(names, ", ")
}

// reportMissing warns about each registry package no catalog holds, saying where it was
// looked for; a --package that is missing, or nothing found at all, is the error.
func reportMissing(w *wantSet, sources []extractSource, missing []string, warn func(string)) error {
	var explicit []string
	for _, p := range missing {
		if w.explicit[p] {
			explicit = append(explicit, fmt.Sprintf("%s (%s)", p, strings.Join(w.origin[p], ", ")))
			continue
		}
		warn(missingMessage(w, sources, p))
	}
	switch {
	case len(explicit) > 0:
		return fmt.Errorf("packages not in %s: %s", joinSources(sources, allSources(sources)), strings.Join(explicit, "; "))
	case len(missing) == len(w.names):
		return fmt.Errorf("none of the %d packages asked for is in %s (see the warnings): nothing to write", len(w.names), joinSources(sources, allSources(sources)))
	}
	return nil
}

// missingMessage says where a registry package was looked for and what its absence means.
func missingMessage(w *wantSet, sources []extractSource, p string) string {
	searched := w.searched(p, sources)
	where := "in " + joinSources(sources, searched)
	switch sn := w.sourceNames[p]; {
	case len(w.named(p, sources)) > 0:
		where += ", the catalog its entries' sourceName names"
	case len(sn) > 0:
		where += fmt.Sprintf(" (no --from is named %s, the sourceName of its entries: name one as NAME=SOURCE to look there only)", strings.Join(sn, " or "))
	}
	msg := fmt.Sprintf("package %s (%s) is not %s: the snapshot leaves it out, so a render needs another catalog for it", p, strings.Join(w.origin[p], ", "), where)
	if w.userManaged[p] {
		msg += " (its entries are userManaged: a render reads only the kinds it serves from it)"
	}
	return msg
}
