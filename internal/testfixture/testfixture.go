// Package testfixture owns the test data that is derived at test time rather than kept in
// git: files the tests need that the product writes from real inputs (a CatalogSnapshot with
// pulled bundle contents, built from real bundle folders). Those inputs are third-party data
// read from the reference-data folder (internal/refdata), with the project's own files of
// testdata. Each is generated offline, once per change of its inputs, into
// testdata/generated/ (gitignored), under a name keyed by a hash of those inputs, written
// atomically so that test binaries run in parallel may race to write it. It is for tests and
// hack/ tools only.
package testfixture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// GeneratedDir is the folder, relative to the repository root, that holds the generated
// files (listed in .gitignore).
const GeneratedDir = "testdata/generated"

// staleAfter is how long a generated file of the same name under an older key is kept
// before a new one prunes it: long enough for a test binary started before an input changed
// to have read it.
const staleAfter = time.Hour

// generator writes one generated file.
type generator struct {
	// file is the generated file's name without the key: <base>-<key><ext>.
	base, ext string
	// key hashes every input of the file, given the repository root.
	key func(root string) (string, error)
	// generate writes the file's contents, given the repository root.
	generate func(ctx context.Context, root string) ([]byte, error)
}

// generators are the generated files by the name case files give them.
var generators = map[string]generator{
	FoundationalServices: {
		base: FoundationalServices, ext: ".snapshot.yaml",
		key: foundationalServicesKey, generate: GenerateFoundationalServices,
	},
}

// Names lists the generated files, sorted.
func Names() []string {
	var names []string
	for n := range generators {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// paths caches Path's answer for each name in this process.
var (
	pathsMu sync.Mutex
	paths   = map[string]func() (string, error){}
)

// Path returns the absolute path of the generated file name (one of Names), generating it
// when testdata/generated has none for the current inputs. It is computed once per process.
// Without the reference folder the error wraps refdata.ErrMissing (a test skips:
// golden.ResolveCatalogs).
func Path(name string) (string, error) {
	pathsMu.Lock()
	once, ok := paths[name]
	if !ok {
		once = sync.OnceValues(func() (string, error) { return path(context.Background(), name) })
		paths[name] = once
	}
	pathsMu.Unlock()
	return once()
}

// path finds or writes the generated file name.
func path(ctx context.Context, name string) (string, error) {
	g, ok := generators[name]
	if !ok {
		return "", fmt.Errorf("generated file %q: unknown (known: %s)", name, strings.Join(Names(), ", "))
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	key, err := g.key(root)
	if err != nil {
		return "", fmt.Errorf("generated file %s: hashing its inputs: %w", name, err)
	}
	dir := filepath.Join(root, GeneratedDir)
	file := filepath.Join(dir, g.base+"-"+key+g.ext)
	if _, err := os.Stat(file); err == nil {
		return file, nil
	}
	data, err := g.generate(ctx, root)
	if err != nil {
		return "", fmt.Errorf("generated file %s: %w", name, err)
	}
	if err := writeAtomic(file, data); err != nil {
		return "", fmt.Errorf("generated file %s: %w", name, err)
	}
	pruneStale(dir, g, file, time.Now())
	return file, nil
}

// RepoRoot is the repository root: two folders above this package's source.
func RepoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", fmt.Errorf("the repository root: this package's source path is not known (%q)", file)
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..")), nil
}

// writeAtomic writes data to path through a temporary file in the same folder renamed over
// it, so that a reader sees the whole file or none.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := firstError(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// firstError is the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// pruneStale removes the files of g under other keys not modified for staleAfter, and
// temporary files left as long (best effort: a file that cannot be removed stays).
func pruneStale(dir string, g generator, keep string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		ours := strings.HasPrefix(n, g.base+"-") && strings.HasSuffix(n, g.ext) ||
			strings.HasPrefix(n, "."+g.base+"-") && strings.Contains(n, g.ext+".tmp-")
		if !ours || filepath.Join(dir, n) == keep {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > staleAfter {
			_ = os.Remove(filepath.Join(dir, n))
		}
	}
}
