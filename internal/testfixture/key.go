package testfixture

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// keyLength is how many hex digits of the inputs' hash name a generated file.
const keyLength = 16

// inputs hashes the files a generated file is made from into its key.
type inputs struct {
	root string
	h    hash.Hash
}

// newInputs starts the key of a generator of the given version (bumped when the generator
// changes what it writes).
func newInputs(root, version string) *inputs {
	in := &inputs{root: root, h: sha256.New()}
	fmt.Fprintf(in.h, "generator %s\n", version)
	return in
}

// addTree hashes every file under dir (relative to the root) that keep accepts, by path
// and contents, in lexical order.
func (in *inputs) addTree(dir string, keep func(rel string) bool) error {
	return in.walk(in.root, filepath.Join(in.root, dir), "", keep)
}

// addReference hashes every file under rel, a folder of the reference folder (refdata), by
// its name "reference:PATH" and contents, in lexical order: the key does not depend on where
// the reference folder is. The error wraps refdata.ErrMissing when there is none.
func (in *inputs) addReference(rel string) error {
	dir, err := refdata.Lookup(rel)
	if err != nil {
		return err
	}
	root, err := refdata.Root()
	if err != nil {
		return err
	}
	return in.walk(root, dir, refdata.Prefix, nil)
}

// walk hashes every file under dir that keep accepts, named prefix + its path relative to
// base (slash-separated), by name and contents, in lexical order.
func (in *inputs) walk(base, dir, prefix string, keep func(rel string) bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if keep != nil && !keep(rel) {
			return nil
		}
		return in.addData(prefix+rel, p)
	})
}

// addFile hashes one file (relative to the root) by path and contents.
func (in *inputs) addFile(rel string) error {
	return in.addData(rel, filepath.Join(in.root, filepath.FromSlash(rel)))
}

// addData hashes the file at path under the name name, and its contents.
func (in *inputs) addData(name, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(in.h, "%s %d\n", name, len(data))
	in.h.Write(data)
	return nil
}

// addGoSources hashes the module's Go sources outside tests (pkg/, internal/, go.mod,
// go.sum): the code a generator runs, so that a change of the product's output makes a new
// file rather than leaving a stale one in the cache.
func (in *inputs) addGoSources() error {
	goSource := func(rel string) bool {
		return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
	}
	for _, dir := range []string{"pkg", "internal"} {
		if err := in.addTree(dir, goSource); err != nil {
			return err
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := in.addFile(f); err != nil {
			return err
		}
	}
	return nil
}

// key is the hash of every input added.
func (in *inputs) key() string {
	return hex.EncodeToString(in.h.Sum(nil))[:keyLength]
}
