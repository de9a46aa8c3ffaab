package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/testfixture"
)

// realCase is IBM's foundational-services configuration as the common-services operator
// assembles it (testdata/render/real-foundational-services/README.md): 97 registry entries
// of 28 packages, 15 entries installMode no-op (9 packages only no-op), every entry with
// sourceName opencloud-operators; its catalog holds real data of 3 packages from two
// vendors' catalogs (read from the reference folder) and the project's stand-in for Red
// Hat's Keycloak (testfixture.FoundationalServicesCatalog).
const realCase = "../../testdata/render/real-foundational-services"

// realRegistry is the case's OperandRegistry, IBM's, read from the reference folder (t skips
// without it).
func realRegistry(t *testing.T) string {
	t.Helper()
	return refdata.Testdata(t, "render/real-foundational-services/input/registry.yaml")
}

// realInputs are the case's inputs: its input/ folder and IBM's registry and config from the
// reference folder (t skips without it).
func realInputs(t *testing.T) []string {
	t.Helper()
	return golden.LoadCase(t, realCase).InputPaths(t)
}

// realCatalog is the case's catalog folder as the repository held it, assembled in a
// temporary folder from the reference folder's packages and the repository's stand-in (t
// skips without the reference folder).
func realCatalog(t *testing.T) string {
	t.Helper()
	refdata.Testdata(t, "render/real-foundational-services/catalog")
	root, err := testfixture.RepoRoot()
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, testfixture.AssembleFoundationalServicesCatalog(root, dir))
	return dir
}

// vendorCatalogs splits the real case's catalog as the vendors publish it: IBM's packages,
// Red Hat's Keycloak (the stand-in) and EDB's PostgreSQL in three catalogs (t skips without
// the reference folder).
func vendorCatalogs(t *testing.T) (ibm, redhat, certified string) {
	t.Helper()
	catalog := realCatalog(t)
	dir := t.TempDir()
	for sub, pkgs := range map[string][]string{
		"opencloud-operators": {"ibm-iam-operator", "ibm-commonui-operator-app"},
		"certified-operators": {"cloud-native-postgresql"},
	} {
		copyPackages(t, catalog, filepath.Join(dir, sub), pkgs...)
	}
	return filepath.Join(dir, "opencloud-operators"), redhatCatalog(t), filepath.Join(dir, "certified-operators")
}

// redhatCatalog is the catalog redhat-operators of vendorCatalogs: the project's
// rhbk-operator stand-in alone, which the repository holds.
func redhatCatalog(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "redhat-operators")
	copyPackages(t, filepath.Join("../..", testfixture.FoundationalServicesCatalog), dst, testfixture.FoundationalServicesOwnPackages...)
	return dst
}

// copyPackages copies the catalog.yaml of each package folder of src into dst.
func copyPackages(t *testing.T, src, dst string, pkgs ...string) {
	t.Helper()
	for _, p := range pkgs {
		data, err := os.ReadFile(filepath.Join(src, p, "catalog.yaml"))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dst, p), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dst, p, "catalog.yaml"), data, 0o644))
	}
}

// noOpOnly are the real registry's packages whose every entry is installMode no-op.
var noOpOnly = []string{"ibm-licensing-operator-app", "ibm-cert-manager-operator", "ibm-healthcheck-operator-app", "ibm-management-ingress-operator-app",
	"ibm-ingress-nginx-operator-app", "ibm-auditlogging-operator-app", "ibm-platform-api-operator-app", "ibm-monitoring-grafana-operator-app", "zen-cpp-operator"}

// TestExtractRealRegistry: extract on a real registry keeps what the catalogs hold, warns per
// missing package where it looked, skips no-op entries, maps entries to the catalog their
// sourceName names, and fails only when nothing is found.
func TestExtractRealRegistry(t *testing.T) {
	t.Parallel()
	ibm, redhat, certified := vendorCatalogs(t)
	registry := realRegistry(t)
	missingWarning := func(stderr string) int { return strings.Count(stderr, "odlm-render: warning: package ") }

	t.Run("entries look where their sourceName points", func(t *testing.T) {
		code, out, stderr := extract(t, "", "catalog", "extract", "--registry", registry, "--from", ibm, "--from", redhat, "--from", certified, "--bundle-contents", "drop")
		require.Equal(t, ExitOK, code, stderr)
		assert.Equal(t, 1, strings.Count(out, "kind: CatalogSnapshot"), "only opencloud-operators keeps packages")
		assert.Contains(t, out, "metadata:\n  name: opencloud-operators\n")
		assert.Equal(t, 2, strings.Count(out, "\n  - name: "))
		assert.Equal(t, 28-len(noOpOnly)-2, missingWarning(stderr))
		assert.Contains(t, stderr, "odlm-render: warning: package rhbk-operator (OperandRegistry cs-services/common-service) is not in opencloud-operators ("+ibm+"), the catalog its entries' sourceName names: the snapshot leaves it out, so a render needs another catalog for it\n")
		assert.Contains(t, stderr, "package cloud-native-postgresql (OperandRegistry cs-services/common-service) is not in opencloud-operators")
		for _, p := range noOpOnly {
			assert.NotContains(t, stderr, p, "no-op entries install nothing")
		}
	})

	t.Run("with no catalog named after the sourceName, every catalog is looked in", func(t *testing.T) {
		snap := filepath.Join(t.TempDir(), "snapshot.yaml")
		code, _, stderr := extract(t, "", "catalog", "extract", "--registry", registry, "--from", "ibm="+ibm, "--from", redhat, "--from", certified, "-o", snap)
		require.Equal(t, ExitOK, code, stderr)
		assert.Equal(t, 28-len(noOpOnly)-4, missingWarning(stderr))
		assert.Contains(t, stderr, "odlm-render: warning: redhat-operators: 3 channel heads carry no contents", "with several catalogs, a catalog's warnings name it")
		assert.Contains(t, stderr, "package ibm-zen-operator (OperandRegistry cs-services/common-service) is not in ibm ("+ibm+"), redhat-operators ("+redhat+"), certified-operators ("+certified+") (no --from is named opencloud-operators, the sourceName of its entries: name one as NAME=SOURCE to look there only): the snapshot leaves it out")
		data, err := os.ReadFile(snap)
		require.NoError(t, err)
		for _, name := range []string{"ibm", "redhat-operators", "certified-operators"} {
			assert.Contains(t, string(data), "metadata:\n  name: "+name+"\n")
		}
		render := func(catalogPath string) string {
			code, out, stderr := extract(t, "", append(append([]string{"render"}, realInputs(t)...), "--catalog", catalogPath)...)
			require.Equal(t, ExitOK, code, stderr)
			return out
		}
		assert.Equal(t, render(realCatalog(t)), render(snap), "the snapshots of three catalogs render as the catalog folder")
	})
}

// TestExtractKeepsAndWarns: a package several catalogs hold, user-managed operators, and
// nothing found.
func TestExtractKeepsAndWarns(t *testing.T) {
	t.Parallel()
	redhat := redhatCatalog(t)

	t.Run("a package two catalogs hold is kept from the first", func(t *testing.T) {
		code, out, stderr := extract(t, "", "catalog", "extract", "--package", "rhbk-operator", "--from", redhat, "--from", "copy="+redhat, "--bundle-contents", "drop")
		require.Equal(t, ExitOK, code, stderr)
		assert.Equal(t, 1, strings.Count(out, "kind: CatalogSnapshot"))
		assert.Contains(t, stderr, "odlm-render: warning: package rhbk-operator is in redhat-operators ("+redhat+"), copy ("+redhat+"): kept from redhat-operators, the first --from\n")
	})

	t.Run("user-managed operators are kept, and said so when missing", func(t *testing.T) {
		reg := filepath.Join(t.TempDir(), "registry.yaml")
		require.NoError(t, os.WriteFile(reg, []byte(`apiVersion: operator.ibm.com/v1alpha1
kind: OperandRegistry
metadata: {name: common-service, namespace: cs}
spec:
  operators:
  - {name: keycloak-operator, packageName: rhbk-operator, channel: stable-v24, userManaged: true}
  - {name: cert-manager, packageName: cert-manager, channel: stable-v1, userManaged: true, sourceName: redhat-operators}
`), 0o644))
		code, out, stderr := extract(t, "", "catalog", "extract", "--registry", reg, "--from", redhat, "--bundle-contents", "drop")
		require.Equal(t, ExitOK, code, stderr)
		assert.Contains(t, out, "  - name: rhbk-operator\n")
		assert.Contains(t, stderr, "package cert-manager (OperandRegistry cs/common-service) is not in redhat-operators ("+redhat+"), the catalog its entries' sourceName names: the snapshot leaves it out, so a render needs another catalog for it (its entries are userManaged: a render reads only the kinds it serves from it)\n")
	})

	t.Run("nothing found is an error, and nothing is written", func(t *testing.T) {
		registry := realRegistry(t)
		out := filepath.Join(t.TempDir(), "out.yaml")
		code, stdout, stderr := extract(t, "", "catalog", "extract", "--registry", registry, "--from", t.TempDir(), "-o", out)
		assert.Equal(t, ExitErrors, code)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "odlm-render: none of the 19 packages asked for is in ")
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err))
	})
}

func TestExtractSourcesUsage(t *testing.T) {
	t.Parallel()
	ibm, redhat := filepath.Join(t.TempDir(), "opencloud-operators"), redhatCatalog(t)
	require.NoError(t, os.Mkdir(ibm, 0o755))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"two sources of one name", []string{"--from", ibm, "--from", "opencloud-operators=" + redhat}, "are both named opencloud-operators: name one as NAME=SOURCE"},
		{"--name with several sources", []string{"--from", ibm, "--from", redhat, "--name", "x"}, "--name names the snapshot of one --from"},
		{"a name without a source", []string{"--from", "opencloud-operators="}, `--from "opencloud-operators=": no source`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := extract(t, "", append([]string{"catalog", "extract"}, tc.args...)...)
			assert.Equal(t, ExitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tc.want)
		})
	}
}
