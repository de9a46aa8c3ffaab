package collection

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
)

type member struct {
	name string
	size int64 // of NUL bytes
}

// writeZerosArchive writes a gzipped tar of members of NUL bytes and returns its path.
func writeZerosArchive(t *testing.T, members ...member) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: m.name, Mode: 0o644, Size: m.size, Typeflag: tar.TypeReg}))
		_, err := io.CopyN(tw, zeroReader{}, m.size)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	p := filepath.Join(t.TempDir(), "c.tar.gz")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestReadArchiveLimits: an archive is unpacked within its limits (small ones here), and
// the error names the limit and the member it was reached at.
func TestReadArchiveLimits(t *testing.T) {
	limits := archiveLimits{bytes: 4 << 20, files: 10, member: 1 << 20}
	many := make([]member, 11)
	for i := range many {
		many[i] = member{name: "m" + strings.Repeat("x", i), size: 10}
	}
	tests := []struct {
		name    string
		members []member
		want    string // the error; "" for none
	}{
		{"members within the limits", []member{{"a", 1 << 20}, {"b", 1 << 20}}, ""},
		{"more unpacked than the limit (tar headers count)", []member{{"a", 1 << 20}, {"b", 1 << 20}, {"c", 1 << 20}, {"d", 1 << 20}},
			`more than 4 MiB unpacked, the limit on an archive (at member "d")`},
		{"a member over the member limit still counts as unpacked", []member{{"big", 5 << 20}},
			`more than 4 MiB unpacked, the limit on an archive (at member "big")`},
		{"more members than the limit", many, `more than 10 members, the limit on an archive (at member "mxxxxxxxxxx")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readArchive(writeZerosArchive(t, tc.members...), limits)
			if tc.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tc.want)
			}
		})
	}
}

// TestArchiveMemberOverTheLimitIsListedNotLoaded: a member larger than the member limit is
// there for Stat and ReadDir, with its size, but opening it is an error naming the limit.
func TestArchiveMemberOverTheLimitIsListedNotLoaded(t *testing.T) {
	fsys, err := readArchive(writeZerosArchive(t, member{"docs/big.bin", 3 << 20}, member{"small", 5}),
		archiveLimits{bytes: 64 << 20, files: 10, member: 1 << 20})
	require.NoError(t, err)
	st, err := fs.Stat(fsys, "docs/big.bin")
	require.NoError(t, err)
	assert.Equal(t, int64(3<<20), st.Size())
	entries, err := fs.ReadDir(fsys, "docs")
	require.NoError(t, err)
	require.Len(t, entries, 1)
	_, err = fsys.Open("docs/big.bin")
	assert.EqualError(t, err, "open docs/big.bin: 3145728 bytes unpacked, over the 1 MiB limit on one member of an archive")
	data, err := readFile(fsys, "small", maxReadFile)
	require.NoError(t, err)
	assert.Len(t, data, 5)
}

// TestArchiveThatIsAFIFOIsRefused: the archive itself must be a regular file (the open of a
// FIFO would wait for a writer forever).
func TestArchiveThatIsAFIFOIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.tar.gz")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	_, _, _, err := Open(p)
	assert.EqualError(t, err, filepath.ToSlash(p)+": not a regular file (a FIFO)")
}

// TestVarScanStopsAtTheLimits: the search for variable names looks at a bounded number of
// files and bytes; past them, it says so instead of warning about vars it could not find.
func TestVarScanStopsAtTheLimits(t *testing.T) {
	fsys := fstest.MapFS{
		"operator-config.yml":    {Data: []byte("x")},
		"playbooks/a.yml":        {Data: []byte("- hosts: all\n  vars: {size: 1}\n")},
		"roles/r/tasks/main.yml": {Data: []byte(strings.Repeat("name ", 100))},
	}
	cfg := &Config{Resources: []Resource{{Kind: "K", Playbook: "playbooks/a.yml", Vars: []Var{{Name: "size"}, {Name: "missing"}}}}}
	tests := []struct {
		name   string
		limits scanLimits
		want   []string
	}{
		{"within the limits", scanLimits{files: 100, bytes: 1 << 20},
			[]string{`c/operator-config.yml: warning: resources[0].vars[1].name: no playbook, role or template of the collection uses variable "missing": it MUST name a variable of the playbook playbooks/a.yml or its roles`}},
		{"too many files", scanLimits{files: 3, bytes: 1 << 20},
			[]string{"c: warning: stopped looking for the variables the collection uses after 3 files or 1 MiB read, the limits on a collection: unused vars are not reported"}},
		{"too many bytes", scanLimits{files: 100, bytes: 100},
			[]string{"c: warning: stopped looking for the variables the collection uses after 100 files or 100 bytes read, the limits on a collection: unused vars are not reported"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &checker{fsys: fsys, display: "c", file: "c/operator-config.yml", scanLimits: &tc.limits}
			for i := range cfg.Resources[0].Vars {
				cfg.Resources[0].Vars[i].field = "resources[0].vars[" + string(rune('0'+i)) + "]"
			}
			c.checkVarReferences(cfg)
			assert.Equal(t, tc.want, resultStrings(c.results))
		})
	}
}

func resultStrings(rs diag.Results) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// TestAddIdentsFindsWhatTheRegexpFinds: the hand-written scanner finds the identifiers
// [A-Za-z_][A-Za-z0-9_]* finds, on text with digits, non-ASCII bytes and punctuation.
func TestAddIdentsFindsWhatTheRegexpFinds(t *testing.T) {
	re := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	for _, text := range []string{
		"", "a", "9abc a9b _x1 {{ size }}", "é_size naïve x\u00e9y", "a-b.c[d]@e`f{g~h", "\x00zz\xffq_",
		"- hosts: all\n  tasks:\n  - debug: msg={{ dataset_name }}\n",
	} {
		want := map[string]bool{}
		for _, m := range re.FindAllString(text, -1) {
			want[m] = true
		}
		got := map[string]bool{}
		addIdents(got, []byte(text))
		assert.Equal(t, sortedKeys(want), sortedKeys(got), "%q", text)
	}
}

func sortedKeys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
