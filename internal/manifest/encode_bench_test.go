package manifest

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteYAML writes every expected object of the golden render cases as one YAML
// stream (what the CLI prints), the measured path of manifest output.
func BenchmarkWriteYAML(b *testing.B) {
	files, err := filepath.Glob("../../testdata/render/*/expected/*.yaml")
	if err != nil || len(files) == 0 {
		b.Fatal("no golden files", err)
	}
	var objs []*Object
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		size += len(data)
		o, err := Decode(f, data)
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, o...)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteYAML(io.Discard, objs); err != nil {
			b.Fatal(err)
		}
	}
}
