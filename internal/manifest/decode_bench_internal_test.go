package manifest

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// The decode benchmarks measure the three paths of Decode on real and generated inputs: the
// sequential yaml.v3 decode (Converter.value), the parallel decode of a large plain stream
// (fastParser), and one plain document on the fast parser alone.

// benchFile reads a file of the reference folder's copy of testdata (rel relative to
// testdata/; b skips without it).
func benchFile(b *testing.B, rel string) []byte {
	b.Helper()
	data, err := os.ReadFile(refdata.Testdata(b, rel))
	require.NoError(b, err)
	return data
}

// BenchmarkDecodeSequential decodes IBM's foundational-services OperandConfig (flow
// mappings, block scalars, comments: the yaml.v3 path) a document at a time.
func BenchmarkDecodeSequential(b *testing.B) {
	data := benchFile(b, "render/real-foundational-services/input/config.yaml")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := decodeSequential("config.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeCatalog decodes a real file-based catalog (large, over parallelMinBytes
// only when concatenated: here sequential).
func BenchmarkDecodeCatalog(b *testing.B) {
	data := benchFile(b, "catalogs/certified/linstor-operator/catalog.yaml")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode("catalog.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeParallelFleet decodes a large stream of generated OperandRequests (the
// layout the parallel decode and the fast parser take).
func BenchmarkDecodeParallelFleet(b *testing.B) {
	var s strings.Builder
	for s.Len() < 4*parallelMinBytes {
		s.WriteString(fleetDoc)
	}
	data := []byte(s.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, ok := decodeParallel("fleet.yaml", data, parallelMinBytes); !ok {
			b.Fatal("the parallel decode refused the fleet")
		}
	}
}

// BenchmarkFastDocument parses one generated document with the fast parser alone.
func BenchmarkFastDocument(b *testing.B) {
	data := []byte(fleetDoc)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, _, ok := fastDocument(data, 1); !ok {
			b.Fatal("not taken")
		}
	}
}
