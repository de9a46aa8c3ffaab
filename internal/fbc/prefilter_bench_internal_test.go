package fbc

import (
	"bytes"
	"testing"
)

// prefilterChunks are the documents of the splitter benchmarks' files as the YAML splitter
// cuts them, and the same values as JSON text.
func prefilterChunks(b *testing.B) (yamlDocs []*chunk, jsonDocs [][]byte) {
	files := splitBenchFiles(b)
	for _, data := range files {
		err := splitYAML("bench", bytes.NewReader(data), func(c *chunk) error {
			c.data = bytes.Clone(c.data)
			yamlDocs = append(yamlDocs, c)
			return nil
		}, func(int) {})
		if err != nil {
			b.Fatal(err)
		}
	}
	err := splitJSON("bench", bytes.NewReader(asJSONStream(b, files)), func(c *chunk) error {
		jsonDocs = append(jsonDocs, bytes.Clone(c.data))
		return nil
	}, func(int) {})
	if err != nil {
		b.Fatal(err)
	}
	return yamlDocs, jsonDocs
}

// BenchmarkPrefilter measures the pre-filter alone on real catalog documents: prune (the
// subtrees a render does not read cut out of each YAML document), and the peeks that tell
// what a document is, on its YAML lines and on its JSON text.
func BenchmarkPrefilter(b *testing.B) {
	docs, jsonDocs := prefilterChunks(b)
	var size, jsonSize int64
	for _, c := range docs {
		size += int64(len(c.data))
	}
	for _, d := range jsonDocs {
		jsonSize += int64(len(d))
	}
	b.Run("prune", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range docs {
				prune(c.data, c.peek.schema, true)
			}
		}
	})
	b.Run("peek-yaml", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range docs {
				var p yamlPeek
				for line := range bytes.Lines(c.data) {
					if line[0] != ' ' {
						p.line(bytes.TrimSuffix(line, []byte("\n")))
					}
				}
				_ = p.result()
			}
		}
	})
	b.Run("peek-json", func(b *testing.B) {
		b.SetBytes(jsonSize)
		b.ReportAllocs()
		for b.Loop() {
			for _, d := range jsonDocs {
				peekJSON(d)
			}
		}
	})
}
