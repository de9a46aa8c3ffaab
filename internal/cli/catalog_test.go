package cli

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/image"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/render"
)

const quickstartDir = "../../examples/quickstart"

// testCatalogs is the reference folder's copy of testdata/catalogs: packages of the real
// community and certified catalogs v4.20 (t skips without the reference folder).
func testCatalogs(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs")
}

// catalogsArg stands, in a table's arguments, for testCatalogs: replaced in the subtest that
// runs the case, so that only the cases reading the real catalogs skip without them.
const catalogsArg = "{catalogs}"

// extract runs odlm-render with args as Main does, registering the
// catalog command when the root does not have it yet.
func extract(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return extractWith(t, defaultProgress, stdin, args...)
}

// extractWith is extract with extract's progress lines at the given times.
func extractWith(t *testing.T, progress progressTiming, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRoot(strings.NewReader(stdin), &out, &errOut, render.Render)
	if c, _, err := root.Find([]string{"catalog"}); err == nil && c != root {
		root.RemoveCommand(c)
	}
	root.AddCommand(newCatalogCmdWith(strings.NewReader(stdin), &out, &errOut, progress))
	root.SetArgs(args)
	err := root.Execute()
	code := ExitOK
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintf(&errOut, "odlm-render: %v\n", err)
		code = ExitUsage
	default:
		if !errors.Is(err, errReported) {
			fmt.Fprintf(&errOut, "odlm-render: %v\n", err)
		}
		code = ExitErrors
	}
	return code, out.String(), errOut.String()
}

// TestExtractThenRender: the snapshot of the packages an OperandRegistry
// names renders exactly as the catalog it came from.
func TestExtractThenRender(t *testing.T) {
	t.Parallel()
	catalogs := testCatalogs(t)
	out := filepath.Join(t.TempDir(), "snapshot.yaml")
	code, stdout, stderr := extract(t, "", "catalog", "extract", "--from", catalogs, "--registry", quickstartDir+"/manifests", "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, "odlm-render: warning: 2 channel heads carry no contents (the catalog has their CSV metadata only): kube-green.v0.7.1, nfs-provisioner-operator.v0.0.9; render cannot check the custom resources of their kinds against their CRDs (--bundle-contents pull reads them from the bundle images)\n", stderr)
	snap, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(snap), "kind: CatalogSnapshot\nmetadata:\n  name: catalogs\n")
	assert.Contains(t, string(snap), "  - name: kube-green\n")
	assert.Contains(t, string(snap), "  - name: nfs-provisioner-operator\n")
	assert.Equal(t, 2, strings.Count(string(snap), "\n  - name: "), "only the packages the registry names")

	render := func(catalogPath string) string {
		code, out, stderr := extract(t, "", "render", quickstartDir+"/manifests", "--catalog", catalogPath)
		require.Equal(t, ExitOK, code, stderr)
		return out
	}
	fromFBC := render(catalogs)
	require.NotEmpty(t, fromFBC)
	assert.Equal(t, fromFBC, render(out))

	t.Run("the same catalog gives the same bytes", func(t *testing.T) {
		code, again, _ := extract(t, "", "catalog", "extract", "--from", catalogs, "--registry", quickstartDir+"/manifests/registry.yaml")
		require.Equal(t, ExitOK, code)
		assert.Equal(t, string(snap), again)
	})
	t.Run("extracting a snapshot gives the snapshot", func(t *testing.T) {
		code, again, stderr := extract(t, "", "catalog", "extract", "--from", out, "--name", "catalogs")
		require.Equal(t, ExitOK, code, stderr)
		assert.Equal(t, strings.Replace(string(snap), "type: fbc\n    ref: "+catalogs+"\n", "type: fbc\n    ref: "+out+"\n", 1), again)
	})
}

func TestExtractWarnsAboutUnknownSchemas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kg, err := os.ReadFile(testCatalogs(t) + "/community/kube-green/catalog.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.yaml"), append(kg, "---\nschema: example.com.custom\nwhatever: [1, 2]\n"...), 0o644))
	code, out, stderr := extract(t, "", "catalog", "extract", "--from", dir, "--bundle-contents", "drop")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "  - name: kube-green\n")
	assert.Equal(t, "odlm-render: warning: blobs of schemas odlm-render does not read were ignored: example.com.custom (1)\n", stderr)
}

func TestExtractPackages(t *testing.T) {
	t.Parallel()
	catalogs := testCatalogs(t)
	code, out, stderr := extract(t, "", "catalog", "extract", "--from", catalogs, "--package", "kube-green", "--package", "linstor-operator")
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, 2, strings.Count(out, "\n  - name: "))

	code, out, _ = extract(t, "", "catalog", "extract", "--from", catalogs)
	require.Equal(t, ExitOK, code)
	assert.Equal(t, 9, strings.Count(out, "\n  - name: "), "no filter: every package")

	reg, err := os.ReadFile(quickstartDir + "/manifests/registry.yaml")
	require.NoError(t, err)
	code, out, stderr = extract(t, string(reg), "catalog", "extract", "--from", catalogs, "--registry", "-", "--package", "linstor-operator")
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, 3, strings.Count(out, "\n  - name: "), "registry from stdin, plus --package")
}

func TestCatalogNeedsACommand(t *testing.T) {
	t.Parallel()
	code, _, stderr := extract(t, "", "catalog")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "catalog needs a command: extract")
}

func TestExtractErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	missingPkg := writeFile("registry.yaml", `apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: ibm-common-services}
spec:
  operators:
  - name: kube-green
    packageName: kube-green
  - name: ghost
    packageName: ghost-operator
`)
	noRegistry := writeFile("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	noPackageName := writeFile("bad-registry.yaml", "apiVersion: operator.ibm.com/v1alpha1\nkind: OperandRegistry\nmetadata: {name: r}\nspec:\n  operators:\n  - name: x\n")
	notFBC := writeFile("items.json", `{"apiVersion":"v1","kind":"ConfigMap"}`)
	dup := filepath.Join(dir, "dup")
	require.NoError(t, os.MkdirAll(filepath.Join(dup, "a"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dup, "b"), 0o755))
	kg := []byte("schema: olm.package\nname: kube-green\n")
	require.NoError(t, os.WriteFile(filepath.Join(dup, "a", "catalog.yaml"), kg, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dup, "b", "catalog.yaml"), kg, 0o644))

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no source", []string{"catalog", "extract"}, ExitUsage, []string{"extract needs --from SOURCE"}},
		{"arguments", []string{"catalog", "extract", "--from", quickstartDir + "/catalog", "extra"}, ExitUsage, []string{`extract takes no arguments (got "extra")`}},
		{"unknown flag", []string{"catalog", "extract", "--frm", "x"}, ExitUsage, []string{"unknown flag: --frm"}},
		{"no command", []string{"catalog", "--from", "x"}, ExitUsage, []string{"unknown flag: --from"}},
		{"missing package", []string{"catalog", "extract", "--from", catalogsArg, "--package", "ghost-operator", "--package", "kube-green"}, ExitErrors,
			[]string{"packages not in catalogs (" + catalogsArg + "): ghost-operator (--package)"}},
		{"no package of the registry", []string{"catalog", "extract", "--from", catalogsArg + "/certified", "--registry", missingPkg}, ExitErrors,
			[]string{"package ghost-operator (OperandRegistry ibm-common-services/common-service) is not in certified", "none of the 2 packages asked for is in certified"}},
		{"no registry in the files", []string{"catalog", "extract", "--from", quickstartDir + "/catalog", "--registry", noRegistry}, ExitErrors,
			[]string{"no OperandRegistry (operator.ibm.com) in " + noRegistry}},
		{"registry without packageName", []string{"catalog", "extract", "--from", quickstartDir + "/catalog", "--registry", noPackageName}, ExitErrors,
			[]string{"bad-registry.yaml:6", "spec.operators[0] has no packageName"}},
		{"missing source", []string{"catalog", "extract", "--from", filepath.Join(dir, "nothing")}, ExitErrors, []string{"nothing: no such file or folder"}},
		{"not FBC", []string{"catalog", "extract", "--from", notFBC}, ExitErrors, []string{"items.json:1 (document 0)", `blob has no "schema"`}},
		{"duplicate packages", []string{"catalog", "extract", "--from", dup}, ExitErrors, []string{`package "kube-green": olm.package defined twice: first at ` + filepath.Join(dup, "a", "catalog.yaml")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, wants := tc.args, tc.stderr
			if strings.Contains(strings.Join(args, " "), catalogsArg) {
				catalogs := testCatalogs(t)
				replace := func(list []string) []string {
					var out []string
					for _, s := range list {
						out = append(out, strings.ReplaceAll(s, catalogsArg, catalogs))
					}
					return out
				}
				args, wants = replace(args), replace(wants)
			}
			out := filepath.Join(t.TempDir(), "out.yaml")
			code, stdout, stderr := extract(t, "", append(args, "-o", out)...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Empty(t, stdout)
			for _, w := range wants {
				assert.Contains(t, stderr, w)
			}
			_, err := os.Stat(out)
			assert.True(t, os.IsNotExist(err), "nothing is written on error")
		})
	}
}

// TestExtractFromRegistryWithProgress: an image served by an in-process
// registry that answers slowly; the progress line appears after the
// configured delay.
func TestExtractFromRegistryWithProgress(t *testing.T) {
	t.Parallel()
	fast := progressTiming{after: 50 * time.Millisecond, every: 50 * time.Millisecond}

	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	slow := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow && strings.Contains(r.URL.Path, "/blobs/") {
			time.Sleep(150 * time.Millisecond)
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")

	var files []string
	require.NoError(t, filepath.Walk(quickstartDir+"/catalog", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			files = append(files, p)
		}
		return err
	}))
	var tarBuf bytes.Buffer
	require.NoError(t, writeTar(&tarBuf, quickstartDir+"/catalog", files))
	data := tarBuf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	require.NoError(t, err)
	img, err := mutate.AppendLayers(empty.Image, l)
	require.NoError(t, err)
	img, err = mutate.Config(img, v1.Config{Labels: map[string]string{image.ConfigsLabel: "/configs"}})
	require.NoError(t, err)
	ref, err := name.ParseReference(host + "/community/catalog:v4.20")
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, img))
	digest, err := img.Digest()
	require.NoError(t, err)
	slow = true

	code, out, stderr := extractWith(t, fast, "", "catalog", "extract", "--from", host+"/community/catalog:v4.20", "--registry", quickstartDir+"/manifests")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, out, "metadata:\n  name: catalog-v4.20\n")
	assert.Contains(t, out, "    type: registry\n    ref: "+host+"/community/catalog:v4.20\n    digest: "+digest.String()+"\n")
	assert.Contains(t, stderr, "odlm-render: extracting "+host+"/community/catalog:v4.20: ")
	assert.Contains(t, stderr, "…\n")
	assert.Regexp(t, `MB read, 2 packages, [0-9]+ bundles kept \([0-9.]+m?s\), done\n`, stderr)
	assert.Contains(t, stderr, "odlm-render: warning: 2 channel heads carry no contents (the catalog has their CSV metadata only): kube-green.v0.7.1, nfs-provisioner-operator.v0.0.9;")

	// The same packages as the FBC folder the image was built from.
	code, fromFBC, _ := extract(t, "", "catalog", "extract", "--from", quickstartDir+"/catalog", "--registry", quickstartDir+"/manifests", "--name", "catalog-v4.20")
	require.Equal(t, ExitOK, code)
	cut := func(s string) string {
		i := strings.Index(s, "  packages:")
		require.GreaterOrEqual(t, i, 0, "no packages in %s", s)
		return s[i:]
	}
	assert.Equal(t, cut(fromFBC), cut(out))
}

func writeTar(w io.Writer, root string, files []string) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, f)
		if err := tw.WriteHeader(&tar.Header{Name: "configs/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	return tw.Close()
}

func TestSnapshotName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"quay.io/org/Catalog:v4.20":     "catalog-v4.20",
		"quay.io/org/catalog@sha256:ab": "catalog",
		"/x/y/community-v4.20/":         "community-v4.20",
		"./snap.yaml":                   "snap",
		"img.tar.gz":                    "img",
		"/":                             "catalog",
	} {
		kind := image.KindFBC
		if strings.Contains(in, "quay.io") {
			kind = image.KindRegistry
		}
		assert.Equal(t, want, snapshotName(in, kind), in)
	}
}
