// Package refdata finds the real third-party data the tests read but the repository does not
// hold: operator catalogs, bundles, CRDs and IBM's configurations copied from public
// repositories. They live in a reference-data folder beside the checkout:
// $ODLM_RENDER_REFERENCE_DATA when set, else ../shared/reference from the repository root
// when that folder exists.
//
// A test that needs such a file asks for it with Path (or Testdata for the copy of the
// project's testdata as it stood at 7cea37f). Without the folder the test skips with one line
// naming what is missing and how to point at it; ODLM_RENDER_REQUIRE_TOOLS=1 (CI) makes that
// a failure. Each skip is also appended to $ODLM_RENDER_SKIP_LOG when set, so that
// scripts/test.sh can say how many tests skipped for want of reference data.
//
// Case files (testdata/render, mirror, plan) name such a file "reference:PATH", PATH
// relative to the reference folder (Prefix, Resolve).
package refdata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Env names the reference-data folder.
const Env = "ODLM_RENDER_REFERENCE_DATA"

// EnvRequire makes missing reference data a failure rather than a skip (CI sets it).
const EnvRequire = "ODLM_RENDER_REQUIRE_TOOLS"

// EnvSkipLog names a file each skip for want of reference data is appended to.
const EnvSkipLog = "ODLM_RENDER_SKIP_LOG"

// EnvCatalogs names the folder of the two whole real catalogs (community-v4.20 and
// certified-v4.20, 33 MB); ../shared/catalogs from the repository root when unset.
const EnvCatalogs = "ODLM_RENDER_CATALOGS"

// Prefix marks a case file's entry that names a file of the reference folder.
const Prefix = "reference:"

// TestdataCopy is the reference folder's copy of the project's testdata/ and examples/ as
// they stood at 7cea37f, before the third-party files left the repository.
const TestdataCopy = "odlm-render-testdata"

// ErrMissing is wrapped by Root's and Lookup's error when there is no reference folder.
var ErrMissing = errors.New("reference data missing")

// RepoRoot is the checkout this package is in.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Root returns the reference folder: $ODLM_RENDER_REFERENCE_DATA when set, else
// ../shared/reference from the repository root. The error wraps ErrMissing and says how to
// point at the folder when it does not exist.
func Root() (string, error) {
	dir, from := os.Getenv(Env), Env
	if dir == "" {
		dir, from = filepath.Join(RepoRoot(), "..", "shared", "reference"), "../shared/reference"
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%w: no folder %s (%s); set %s to the reference-data folder", ErrMissing, abs, from, Env)
	}
	return abs, nil
}

// Available says whether the reference folder exists.
func Available() bool {
	_, err := Root()
	return err == nil
}

// Lookup returns the absolute path of rel (slash-separated, relative to the reference
// folder). It errs, wrapping ErrMissing, when there is no reference folder, and names the
// file when the folder lacks it.
func Lookup(rel string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", fmt.Errorf("reference path %q leaves the reference folder", rel)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("reference folder %s has no %s", root, rel)
	}
	return p, nil
}

// Path returns the absolute path of rel in the reference folder, or skips t (fails it with
// ODLM_RENDER_REQUIRE_TOOLS=1) when there is no reference folder. A folder that lacks rel
// fails t: the test names a file that is not there.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p, err := Lookup(rel)
	if errors.Is(err, ErrMissing) {
		Skip(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Testdata is Path of the reference folder's copy of the project's testdata (rel relative
// to testdata/, as the file stood in the repository at 7cea37f).
func Testdata(t testing.TB, rel string) string {
	t.Helper()
	return Path(t, TestdataCopy+"/testdata/"+rel)
}

// Resolve returns entry's path: the reference folder's file for "reference:PATH" (Path), the
// entry itself otherwise. ok says whether it named reference data.
func Resolve(t testing.TB, entry string) (path string, ok bool) {
	t.Helper()
	rel, ok := strings.CutPrefix(entry, Prefix)
	if !ok {
		return entry, false
	}
	return Path(t, rel), true
}

// Skip skips t for want of reference data (err says what is missing), or fails it with
// ODLM_RENDER_REQUIRE_TOOLS=1, and appends one line to $ODLM_RENDER_SKIP_LOG.
func Skip(t testing.TB, err error) {
	t.Helper()
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%v (and %s=1)", err, EnvRequire)
	}
	logSkip(t.Name())
	t.Skip(err)
}

// logSkip appends name to $ODLM_RENDER_SKIP_LOG (one short line: concurrent appends from
// parallel test binaries stay whole).
func logSkip(name string) {
	file := os.Getenv(EnvSkipLog)
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "refdata: %s: %v\n", EnvSkipLog, err)
		return
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, name); err != nil {
		fmt.Fprintf(os.Stderr, "refdata: %s: %v\n", EnvSkipLog, err)
	}
}

// Catalog returns the absolute path of the whole real catalog name (community-v4.20 or
// certified-v4.20) in $ODLM_RENDER_CATALOGS, else ../shared/catalogs from the repository root,
// or skips t (fails it with ODLM_RENDER_REQUIRE_TOOLS=1) when it is not there.
func Catalog(t testing.TB, name string) string {
	t.Helper()
	dir, from := os.Getenv(EnvCatalogs), EnvCatalogs
	if dir == "" {
		dir, from = filepath.Join(RepoRoot(), "..", "shared", "catalogs"), "../shared/catalogs"
	}
	p, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		Skip(t, fmt.Errorf("%w: no catalog %s in %s (%s); set %s to the folder of the real catalogs", ErrMissing, name, dir, from, EnvCatalogs))
	}
	return p
}
