package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// agree checks that decodeParallel, when it takes a stream, gives exactly what the
// sequential decode gives: values, file, document index, line, and field lines.
func agree(t *testing.T, data string) (parallel bool) {
	t.Helper()
	got, ok := decodeParallel("f.yaml", []byte(data), 0)
	want, err := decodeSequential("f.yaml", []byte(data))
	if !ok {
		return false
	}
	require.NoError(t, err, "the parallel decode took a stream the sequential one refuses:\n%s", data)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Map, got[i].Map)
		assert.Equal(t, want[i].Source.File, got[i].Source.File)
		assert.Equal(t, want[i].Source.Index, got[i].Source.Index, "object %d", i)
		assert.Equal(t, want[i].Source.Line, got[i].Source.Line, "object %d", i)
		assert.Equal(t, want[i].Source.item, got[i].Source.item)
		for _, path := range []string{"metadata.name", "spec", "items[0]", "spec.a[1]"} {
			assert.Equal(t, want[i].Source.LineOf(path), got[i].Source.LineOf(path), "object %d, %s", i, path)
		}
	}
	return true
}

func TestDecodeParallelAgrees(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		parallel   bool
	}{
		{"documents", "a: 1\n---\nb: 2\n---\nc: [3]\n", true},
		{"leading comments and marker", "# c\n\n---\na: 1\n---\n# only a comment\n---\nb: {x: y}\n", true},
		{"empty documents count", "---\n---\na: 1\n---\n", true},
		{"crlf", "a: 1\r\n---\r\nb: 2\r\n", true},
		{"list flattened", "apiVersion: v1\nkind: List\nitems:\n- {kind: A, metadata: {name: x}}\n- kind: B\n  metadata: {name: y}\n---\nz: 1\n", true},
		{"block scalar with a dash line inside", "a: |\n  ---\n  x\n---\nb: 1\n", true},
		{"anchors within a document", "a: &x {k: v}\nb: *x\n---\nc: 1\n", true},
		{"marker with a comment", "--- # first\na: 1\n--- # second\nb: 2\n", true},
		{"a directive: sequential", "%YAML 1.2\n---\na: 1\n", false},
		{"document end marker: sequential", "a: 1\n...\n---\nb: 2\n", false},
		{"value after marker: sequential", "--- a: 1\n", false},
		{"syntax error: sequential", "a: 1\n---\nb: [\n", false},
		{"lone CR: sequential", "a: 1\r---\rb: 2\r", false},
		{"not a mapping: sequential", "a: 1\n---\n- x\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.parallel, agree(t, tt.data))
		})
	}
}

// fleetDoc is the layout of generated streams, which fastDocument parses.
const fleetDoc = `---
apiVersion: operator.ibm.com/v1alpha1
kind: OperandRequest
metadata: {name: team-0, namespace: team-0}
spec:
  requests:
  - registry: fleet
    registryNamespace: platform
    operands:
    - name: kube-green
    - {name: kube-green, apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, instanceName: sleep-0, spec: {weekdays: "1-5", sleepAt: "20:00"}}
    - name: nfs
      replicas: 3
      note: a few words
      empty:
      list: []
      map: {}
`

func TestFastDocumentTakesGeneratedLayouts(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{fleetDoc, "a:\n  b:\n  - c\n  - d: e\n    f: [1, -2, x y]\n  - - g\n    - {h: i}\n"} {
		_, _, _, ok := fastDocument([]byte(doc), 1)
		assert.True(t, ok, doc)
		assert.True(t, agree(t, doc+"---\n"+doc))
	}
}

func TestDecodeParallelTakesLargeStreams(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < parallelMinBytes+1; i++ {
		b.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ns}\ndata: {k: v}\n")
	}
	objs, ok := decodeParallel("f.yaml", []byte(b.String()), parallelMinBytes)
	require.True(t, ok)
	assert.Greater(t, len(objs), 1000)
	assert.Equal(t, len(objs)-1, objs[len(objs)-1].Source.Index)
}

func FuzzDecodeParallelAgrees(f *testing.F) {
	for _, s := range []string{"a: 1\n---\nb: 2\n", "---\n---\n", "x: |\n  ---\n---\ny: &a [1]\nz: *a\n", "# c\n---\nk: v\r\n---\r\nl: [1, 2]\n", fleetDoc, fleetDoc + fleetDoc,
		"a:\n  b:\n  - c\n  - d: e\n    f: [1, -2, x y]\n  - - g\n    - {h: i}\n", "k: {a: {b: [c, {d: e}]}, f: \"g h\"}\nl:\n- 0\n- -0\n- 007\n- true\n- null\n- Yes\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		agree(t, data)
	})
}

// TestDecodeParallelAgreesOnRealFiles reads real configurations and catalogs both ways: IBM's
// foundational-services inputs and snapshot, and the real FBC catalogs, from the reference
// folder's copy of testdata.
func TestDecodeParallelAgreesOnRealFiles(t *testing.T) {
	t.Parallel()
	root := refdata.Path(t, refdata.TestdataCopy+"/testdata")
	var files []string
	for _, glob := range []string{
		"render/real-*/input/*.yaml",
		"render/real-*/snapshot/*.yaml",
		"catalogs/*/*/catalog.yaml",
		"catalogs-bundle-object/*/*/catalog.yaml",
	} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 10)
	fast := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		name, err := filepath.Rel(root, f)
		require.NoError(t, err)
		t.Run(filepath.ToSlash(name), func(t *testing.T) {
			t.Parallel()
			agree(t, string(data))
		})
		docs, ok := splitDocuments(data)
		if ok {
			for _, d := range docs {
				if safeFastDocument(d.text, d.line).ok {
					fast++
				}
			}
		}
	}
	t.Logf("%d files, %d documents parsed without yaml.v3", len(files), fast)
	assert.Positive(t, fast, "some real documents take the fast path")
}
