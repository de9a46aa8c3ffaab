package collection_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/odlm-render/odlm-render/internal/collection"
)

// FuzzCollection renders arbitrary operator-configs (and playbooks): never a panic, and
// objects only come with a config that parsed.
func FuzzCollection(f *testing.F) {
	for _, p := range []string{
		"../../examples/collection/operator-config.yml",
		"../../testdata/collection/all-var-types/input/operator-config.yaml",
		"../../testdata/collection/spec-violations/input/operator-config.yml",
		"../../testdata/collection/warnings/input/operator-config.yml",
	} {
		b, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "- hosts: all\n")
	}
	f.Add("description: \"# a\n  b\"\n", "- import_playbook: run.yml\n")
	f.Fuzz(func(t *testing.T, config, playbook string) {
		fsys := fstest.MapFS{
			"operator-config.yml":    {Data: []byte(config)},
			"playbooks/run.yml":      {Data: []byte(playbook)},
			"playbooks/allocate.yml": {Data: []byte(playbook)},
			"playbooks/tune.yml":     {Data: []byte(playbook)},
			"playbooks/report.yml":   {Data: []byte(playbook)},
			"galaxy.yml":             {Data: []byte("namespace: zosutils\nname: datasets\nversion: 1.0.0\n")},
		}
		out := collection.RenderFS(fsys, "c", collection.Options{Namespace: "ns"})
		if out.Config == nil && len(out.Objects) > 0 {
			t.Fatal("objects without a config")
		}
	})
}
