package render_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// chunk is one document of an input file, as text, and where it now is.
type chunk struct {
	origFile  string
	origStart int // 1-based line of the chunk's first line in origFile
	text      string
	lines     int
	file      string // the temp file it was written to
	start     int    // its first line there
}

var docSeparator = regexp.MustCompile(`^---\s*$`)

// splitDocuments cuts a YAML stream on its `---` lines, keeping every document's text (and
// so its line offsets) exactly. A JSON file is one chunk.
func splitDocuments(file, text string) []*chunk {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []*chunk
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, &chunk{origFile: file, origStart: start + 1, text: strings.Join(lines[start:end], ""), lines: end - start})
		}
	}
	for i, l := range lines {
		if docSeparator.MatchString(strings.TrimRight(l, "\r\n")) {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	for _, c := range out {
		if !strings.HasSuffix(c.text, "\n") {
			c.text += "\n"
		}
	}
	return out
}

// TestSplitAcrossFilesDoesNotMatter renders every golden case with its input documents
// shuffled and split across a random number of files (of random sizes), several times with a
// fixed seed each, and requires byte-identical objects and the same results once their
// locations are mapped back to the original files.
func TestSplitAcrossFilesDoesNotMatter(t *testing.T) {
	t.Parallel()
	const iterations = 5
	for _, c := range golden.Cases(t, casesDir) {
		t.Run(c.Name(), func(t *testing.T) {
			in, opts := loadCase(t, c.Dir)
			want := render.Render(in, opts)
			wantResults := mappedResults(want, nil)
			want.Results = nil
			wantObjs := dump(t, want)

			chunks := readChunks(t, c)
			h := fnv.New64a()
			h.Write([]byte(c.Name()))
			for i := range iterations {
				seed := [2]uint64{h.Sum64(), uint64(i)}
				t.Run(fmt.Sprintf("seed-%d", i), func(t *testing.T) {
					dir := writeSplit(t, chunks, rand.New(rand.NewPCG(seed[0], seed[1])))
					in, opts := loadSplit(t, c, dir)
					got := render.Render(in, opts)
					gotResults := mappedResults(got, chunks)
					got.Results = nil
					require.Equal(t, wantObjs, dump(t, got), "seed %v", seed)
					require.Equal(t, wantResults, gotResults, "seed %v", seed)
				})
			}
		})
	}
}

// readChunks cuts every input file of the case into its documents: those of input/ named
// relative to it (as mappedResults names them), those of the case's other inputs (files or
// folders, e.g. reference data) by the path the loader gives them.
func readChunks(t *testing.T, c golden.Case) []*chunk {
	t.Helper()
	var out []*chunk
	for i, p := range c.InputPaths(t) {
		out = append(out, readChunksOf(t, p, i == 0)...)
	}
	require.NotEmpty(t, out)
	return out
}

// readChunksOf reads the documents of the file or folder p, named relative to p when
// relative is set.
func readChunksOf(t *testing.T, p string, relative bool) []*chunk {
	t.Helper()
	var out []*chunk
	inputDir := p
	var err error
	if relative {
		inputDir, err = filepath.EvalSymlinks(inputDir) // a case may share another's inputs
		require.NoError(t, err)
	}
	err = filepath.WalkDir(inputDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(path)
		if relative {
			if rel, err = filepath.Rel(inputDir, path); err != nil {
				return err
			}
		}
		if filepath.Ext(path) == ".json" {
			out = append(out, &chunk{origFile: rel, origStart: 1, text: string(b), lines: strings.Count(string(b), "\n") + 1})
			return nil
		}
		out = append(out, splitDocuments(rel, string(b))...)
		return nil
	})
	require.NoError(t, err)
	return out
}

// writeSplit shuffles the chunks and writes them to between 1 and len(chunks)+1 files (some
// may be empty) in a new temp folder, recording where each one went.
func writeSplit(t *testing.T, chunks []*chunk, rng *rand.Rand) string {
	t.Helper()
	dir := t.TempDir()
	order := slices.Clone(chunks)
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	nFiles := 1 + rng.IntN(len(order)+1)
	// cut points: a sorted random multiset of positions in [0, len(order)]
	cuts := make([]int, nFiles-1)
	for i := range cuts {
		cuts[i] = rng.IntN(len(order) + 1)
	}
	slices.Sort(cuts)
	cuts = append(append([]int{0}, cuts...), len(order))
	for f := range nFiles {
		name := filepath.Join(dir, fmt.Sprintf("f%03d.yaml", rng.IntN(1000)*1000+f))
		var b strings.Builder
		line := 1
		for _, c := range order[cuts[f]:cuts[f+1]] {
			b.WriteString("---\n")
			line++
			c.file, c.start = filepath.ToSlash(name), line
			b.WriteString(c.text)
			line += c.lines
		}
		require.NoError(t, os.WriteFile(name, []byte(b.String()), 0o644))
	}
	return dir
}

// loadSplit is loadCase reading the input documents from inputDir.
func loadSplit(t *testing.T, c golden.Case, inputDir string) (render.Inputs, render.Options) {
	t.Helper()
	docs, err := inputs.ReadPaths([]string{inputDir}, nil)
	require.NoError(t, err)
	set, err := inputs.Classify(docs)
	require.NoError(t, err)
	_, opts := loadCase(t, c.Dir) // the options, snapshots included, are the case's
	cats, err := inputs.LoadCatalogSet(catalog.LoadOptions{}, opts.GlobalNamespace(), c.CatalogPaths(t, "../../testdata/catalogs"), set.CatalogBlobs)
	require.NoError(t, err)
	var sources cluster.Chain
	if len(c.Snapshots) > 0 {
		sources = opts.Sources
	}
	opts.Sources = sources
	return render.Inputs{Objects: set.Resources, Catalog: cats.Plain, SourceCatalogs: cats.Named}, opts
}

var msgLocation = regexp.MustCompile(`(\S+):(\d+) \(document \d+\)`)

// mappedResults prints results sorted, located in the original input files: a location in
// a split file (of the result, or a catalog blob named in its message) is mapped back
// through the chunk that holds its line. Document indexes are dropped (they depend on the
// split).
func mappedResults(out render.Output, chunks []*chunk) []string {
	locate := func(file string, line int) (string, int) {
		for _, c := range chunks {
			if file == c.file && line >= c.start && line < c.start+c.lines {
				return c.origFile, c.origStart + line - c.start
			}
		}
		// ../../testdata/render/CASE/input/x.yaml -> x.yaml
		if rel, err := filepath.Rel(casesDir, file); err == nil && !strings.HasPrefix(rel, "..") {
			if parts := strings.SplitN(filepath.ToSlash(rel), "/", 3); len(parts) == 3 && parts[1] == "input" {
				return parts[2], line
			}
		}
		return file, line
	}
	var lines []string
	for _, r := range out.Results {
		r.Index = 0
		if r.File != "" {
			r.File, r.Line = locate(r.File, r.Line)
		}
		r.Message = msgLocation.ReplaceAllStringFunc(r.Message, func(m string) string {
			sub := msgLocation.FindStringSubmatch(m)
			n, _ := strconv.Atoi(sub[2])
			f, l := locate(sub[1], n)
			return fmt.Sprintf("%s:%d", f, l)
		})
		lines = append(lines, "["+string(r.Severity)+"] "+r.String())
	}
	slices.Sort(lines)
	return lines
}
