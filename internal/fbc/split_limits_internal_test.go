package fbc

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generator streams prefix, then body over and over, up to size bytes, at most piece
// bytes per Read (as a gzip or tar reader hands out a file). Nothing is held in memory, so
// a test can feed a splitter far more than it may keep. Once stop is set, Read fails.
type generator struct {
	prefix, body string
	size         int64
	piece        int
	off          int64
	stop         atomic.Bool
}

var errGeneratorStopped = errors.New("generator stopped")

func (g *generator) Read(p []byte) (int, error) {
	if g.stop.Load() {
		return 0, errGeneratorStopped
	}
	if g.off >= g.size {
		return 0, io.EOF
	}
	if len(g.body) < 4096 { // copy bigger pieces at a time
		g.body = strings.Repeat(g.body, 4096/len(g.body)+1)
	}
	n := int(min(int64(len(p)), int64(g.piece), g.size-g.off))
	for i := 0; i < n; {
		if g.off < int64(len(g.prefix)) {
			c := copy(p[i:n], g.prefix[g.off:])
			i += c
			g.off += int64(c)
			continue
		}
		k := int((g.off - int64(len(g.prefix))) % int64(len(g.body)))
		c := copy(p[i:n], g.body[k:])
		i += c
		g.off += int64(c)
	}
	return n, nil
}

// splitWithin runs the splitter of name's format with limits on g, in a goroutine so that a
// splitter that does not stop fails the test instead of hanging it. It returns the
// bytes allocated meanwhile and the splitter's error.
func splitWithin(t *testing.T, limits splitLimits, name string, g *generator) (uint64, error) {
	t.Helper()
	split := splitYAMLWithin
	if formatOf(name) == "json" {
		split = splitJSONWithin
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	done := make(chan error, 1)
	go func() {
		done <- split(limits, name, g, func(*chunk) error { return nil }, func(int) {})
	}()
	select {
	case err := <-done:
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, err
	case <-time.After(20 * time.Second):
		g.stop.Store(true)
		err := <-done
		t.Fatalf("%s: the splitter still ran after 20 s, at byte %d (stopped: %v)", name, g.off, err)
		return 0, nil
	}
}

// TestSplitterLimits feeds the splitters 64 MiB of one endless value, line or document
// with limits of 1 MiB: each stops early with an error naming the file, where it stopped
// and the limit, having allocated a small multiple of the limit, not of the input.
func TestSplitterLimits(t *testing.T) {
	const stream = 64 << 20
	limits := splitLimits{blob: 1 << 20, line: 1 << 20}
	snapshot := "apiVersion: " + SnapshotAPIVersion + "\nkind: " + SnapshotKind + "\nmetadata:\n  name: s\nspec:\n  packages:\n  - name: p\n"
	tests := []struct {
		name, file, prefix, body string
		want                     []string
	}{
		{"an endless JSON string", "x.json", `{"schema":"olm.package","name":"`, "a",
			[]string{"x.json:1 (document 0): ", "a JSON value over the 1 MiB limit on one blob", "starts at byte 0 ", "(line 1)"}},
		{"an endless JSON value of short lines", "x.json", "\n\n[", "1,\n",
			[]string{"x.json:3 (document 0): ", "a JSON value over the 1 MiB limit on one blob", "starts at byte 2 ", "(line 3"}},
		{"endless JSON nesting", "x.json", "", "[",
			[]string{"x.json:1 (document 0): ", "over the 1 MiB limit on one blob"}},
		{"an endless JSON number", "x.json", "{} ", "1",
			[]string{"x.json:1 (document 1): ", "over the 1 MiB limit on one blob"}},
		{"an endless YAML line", "x.yaml", "schema: olm.package\nname: ", "a",
			[]string{"x.yaml:2 (document 0): ", "line 2 is over the 1 MiB limit on one line"}},
		{"an endless YAML line of nothing but NUL", "x.yaml", "", "\x00",
			[]string{"x.yaml:1 (document 0): ", "line 1 is over the 1 MiB limit on one line"}},
		{"an endless YAML document", "x.yaml", "---\nschema: olm.package\nname: p\ndescription: |\n", "  some text\n",
			[]string{"x.yaml:1 (document 0): ", "a document over the 1 MiB limit on one blob", "at line "}},
		{"endless YAML comments", "x.yaml", "---\n---\n", "# a comment\n",
			[]string{"x.yaml:2 (document 1): ", "a document over the 1 MiB limit on one blob"}},
		{"an endless package of a CatalogSnapshot", "x.yaml", snapshot, "    description: text\n",
			[]string{"x.yaml:7 (document 0): ", "a document over the 1 MiB limit on one blob"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &generator{prefix: tc.prefix, body: tc.body, size: stream, piece: 32 << 10}
			allocated, err := splitWithin(t, limits, tc.file, g)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrTooLarge)
			var ce *Error
			require.ErrorAs(t, err, &ce)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Less(t, g.off, int64(4<<20), "reading stops soon after the limit")
			assert.Less(t, allocated, uint64(16<<20), "memory is bounded by the limit, not by the input")
		})
	}
}

// TestSplitterStaysLinear: a long line or value that arrives in small reads is scanned once,
// not again at every read (which took hours for a line of a few hundred MB), and whitespace
// between values is dropped as it is read.
func TestSplitterStaysLinear(t *testing.T) {
	const size = 16 << 20
	tests := []struct {
		name, file, prefix, body string
	}{
		{"a long YAML line", "x.yaml", "schema: olm.package\nname: p\ndescription: ", "a"},
		{"a long JSON string", "x.json", `{"schema":"olm.package","name":"`, "a"},
		{"endless blank JSON lines", "x.json", "{}", " \n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &generator{prefix: tc.prefix, body: tc.body, size: size, piece: 256}
			start := time.Now()
			_, err := splitWithin(t, splitLimits{blob: 64 << 20, line: 64 << 20}, tc.file, g)
			require.NoError(t, err)
			assert.Less(t, time.Since(start), 5*time.Second)
		})
	}
}

// TestDefaultLimitsLeaveRoom: the defaults hold the largest real blobs (a bundle with its
// manifests base64-encoded is a few MB) many times over, and a line may hold a whole blob
// (JSON written on one line is YAML too).
func TestDefaultLimitsLeaveRoom(t *testing.T) {
	assert.Equal(t, splitLimits{blob: MaxBlobSize, line: MaxLineSize}, defaultSplitLimits)
	assert.GreaterOrEqual(t, MaxBlobSize, 64<<20)
	assert.Equal(t, MaxBlobSize, MaxLineSize)
	assert.Equal(t, "64 MiB", sizeText(MaxBlobSize))
	assert.Equal(t, "1000 bytes", sizeText(1000))
}

// TestCatalogReadersApplyTheLimits: the doors a catalog file comes in by (an image layer's
// file given to Tree.Put, a stream given to AddReader) cut it with the default limits, so
// a gzip layer of a few MB that unpacks to gigabytes of one value is refused once the
// value passes MaxBlobSize, with the file, the place and the limit.
func TestCatalogReadersApplyTheLimits(t *testing.T) {
	const stream = MaxBlobSize + 8<<20
	tests := []struct {
		name, file, prefix, body string
		add                      func(b *Builder, name string, g *generator) error
		want                     string
	}{
		{"an image layer's JSON file", "p/catalog.json", `{"schema":"olm.package","name":"`, "a",
			func(b *Builder, name string, g *generator) error {
				tree := b.NewTree("image:/configs/")
				require.NoError(t, tree.Put(name, g), "Put reports only the reader's errors")
				return tree.Commit()
			},
			"image:/configs/p/catalog.json:1 (document 0): a JSON value over the 64 MiB limit on one blob: it starts at byte 0 and goes on past byte 67108864 (line 1)"},
		{"a YAML stream", "catalog.yaml", "schema: olm.package\nname: ", "a",
			func(b *Builder, name string, g *generator) error { return b.AddReader(name, g) },
			"catalog.yaml:2 (document 0): line 2 is over the 64 MiB limit on one line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &generator{prefix: tc.prefix, body: tc.body, size: stream, piece: 32 << 10}
			start := time.Now()
			err := tc.add(NewBuilder(LoadOptions{}), tc.file, g)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrTooLarge)
			assert.Equal(t, tc.want, err.Error())
			assert.Less(t, g.off, int64(MaxBlobSize+1<<20), "reading stops at the limit")
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
}

// TestByteBudget: the workers' budget hands out at most its size, a chunk larger than the
// budget takes all of it, and a taker waits until enough is given back.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(100)
	assert.Equal(t, 100, b.acquire(500), "a chunk over the budget takes all of it")
	b.release(100)
	held := b.acquire(60)
	got := make(chan int, 1)
	go func() { got <- b.acquire(50) }()
	select {
	case <-got:
		t.Fatal("acquired more than is free")
	case <-time.After(50 * time.Millisecond):
	}
	b.release(held)
	select {
	case n := <-got:
		assert.Equal(t, 50, n)
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after a release")
	}
}
