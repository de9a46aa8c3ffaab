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
	return filepath.WalkDir(filepath.Join(in.root, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(in.root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if keep != nil && !keep(rel) {
			return nil
		}
		return in.addFile(rel)
	})
}

// addFile hashes one file (relative to the root) by path and contents.
func (in *inputs) addFile(rel string) error {
	data, err := os.ReadFile(filepath.Join(in.root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	fmt.Fprintf(in.h, "%s %d\n", rel, len(data))
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
