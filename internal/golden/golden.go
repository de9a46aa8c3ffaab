// Package golden owns the project's golden-directory tests: a case folder holds its inputs
// and an expected/ folder with one file per output object (NN_<kind>_<namespace>_<name>.yaml,
// in output order) and results.txt. Compare fails on missing, extra or different files;
// `go test ... -update` rewrites expected/ on purpose (read the diff before committing).
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/pkg/manifest"
)

// Update is the -update flag of every package that uses golden files.
var Update = flag.Bool("update", false, "rewrite golden files from the actual output")

// Files renders objects and result lines into the expected/ file set.
func Files(objs []*manifest.Object, results []string) (map[string]string, error) {
	files := map[string]string{}
	width := len(fmt.Sprint(len(objs)))
	if width < 2 {
		width = 2
	}
	for i, o := range objs {
		b, err := manifest.MarshalYAML(o.Map)
		if err != nil {
			return nil, err
		}
		ns := o.Namespace()
		if ns == "" {
			ns = "_"
		}
		name := fmt.Sprintf("%0*d_%s_%s_%s.yaml", width, i, strings.ToLower(o.Kind()), ns, o.Name())
		files[name] = string(b)
	}
	files["results.txt"] = strings.Join(results, "\n")
	if len(results) > 0 {
		files["results.txt"] += "\n"
	}
	return files, nil
}

// Compare checks dir against files, or rewrites dir with -update.
func Compare(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if *Update {
		require.NoError(t, os.RemoveAll(dir))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, content := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
		}
		return
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err, "no expected output: run the test with -update and read the result")
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	var want []string
	for name := range files {
		want = append(want, name)
	}
	sort.Strings(have)
	sort.Strings(want)
	assert.Equal(t, have, want, "expected files in %s", dir)
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		assert.Equal(t, string(b), files[name], "%s/%s", dir, name)
	}
}
