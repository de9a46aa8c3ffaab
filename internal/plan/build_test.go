package plan_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/plan"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

const kokuPkg = "koku-metrics-operator"

// koku is the real catalog of koku-metrics-operator (community v4.20, CSV metadata only), read
// from the reference folder (t skips without it).
func koku(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs-upgrade/community-v4.20/koku-metrics-operator")
}

// fusion is the real catalog of openshift-fusion-access-operator (certified v4.20), read from
// the reference folder (t skips without it).
func fusion(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs-upgrade/certified-v4.20/openshift-fusion-access-operator")
}

// kubeGreen is the real catalog of kube-green in the older shape that carries every
// bundle's contents (community v4.16), read from the reference folder (t skips without it).
func kubeGreen(t testing.TB) string {
	t.Helper()
	return refdata.Testdata(t, "catalogs-bundle-object/community-v4.16/kube-green")
}

// loadCatalog reads catalog folders.
func loadCatalog(t *testing.T, paths ...string) *catalog.Catalog {
	t.Helper()
	c, err := inputs.LoadCatalog(paths, nil)
	require.NoError(t, err)
	return c
}

// snapshot is a cluster of the YAML objects given.
func snapshot(t *testing.T, docs ...string) *cluster.Snapshot {
	t.Helper()
	var objs []*manifest.Object
	for _, d := range docs {
		var m map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(d), &m))
		objs = append(objs, manifest.New(m))
	}
	return cluster.NewSnapshot(objs)
}

// install is an Install of the head of pkg's channel.
func install(t *testing.T, c *catalog.Catalog, ns, pkgName, channel string) render.Install {
	t.Helper()
	pkg, ok := c.Package(pkgName)
	require.True(t, ok)
	head, err := pkg.HeadBundle(channel)
	require.NoError(t, err)
	return render.Install{Namespace: ns, Name: pkgName, Package: pkgName, Channel: channel, Bundle: head}
}

func sub(ns, name, pkg, installed string, odlm bool) string {
	labels := "{}"
	if odlm {
		labels = `{operator.ibm.com/opreq-control: "true"}`
	}
	return `{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription, metadata: {name: ` + name + `, namespace: ` + ns +
		`, labels: ` + labels + `}, spec: {name: ` + pkg + `}, status: {installedCSV: "` + installed + `"}}`
}

func csv(ns, name string) string {
	return `{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: ` + name + `, namespace: ` + ns + `}}`
}

func TestBuildFromAndTo(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, koku(t))
	in := install(t, cat, "costs", kokuPkg, "beta")
	for _, tc := range []struct {
		name       string
		cluster    []string
		action     string
		from       string
		hops       int
		pathErrSet bool
	}{
		{"nothing installed", nil, plan.ActionInstall, "", 0, false},
		{"from the Subscription's status", []string{sub("costs", kokuPkg, kokuPkg, "koku-metrics-operator.v4.3.1", true)}, plan.ActionUpgrade, "koku-metrics-operator.v4.3.1", 2, false},
		{"from a CSV of the package", []string{csv("costs", "koku-metrics-operator.v4.4.0"), csv("costs", "other.v1.0.0")}, plan.ActionUpgrade, "koku-metrics-operator.v4.4.0", 1, false},
		{"a CSV in another namespace is not it", []string{csv("elsewhere", "koku-metrics-operator.v4.4.0")}, plan.ActionInstall, "", 0, false},
		{"at the head", []string{sub("costs", kokuPkg, kokuPkg, "koku-metrics-operator.v4.4.1", true)}, plan.ActionUnchanged, "koku-metrics-operator.v4.4.1", 0, false},
		{"unknown to the catalog", []string{sub("costs", kokuPkg, kokuPkg, "koku-metrics-operator.v9.9.9", true)}, plan.ActionUpgrade, "koku-metrics-operator.v9.9.9", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t, tc.cluster...)})
			require.NoError(t, err)
			require.Len(t, p.Operators, 1)
			op := p.Operators[0]
			assert.Equal(t, tc.action, op.Action)
			assert.Equal(t, tc.from, op.From)
			assert.Equal(t, "koku-metrics-operator.v4.4.1", op.To)
			assert.Len(t, op.Path, tc.hops)
			assert.Equal(t, tc.pathErrSet, op.PathError != "")
		})
	}
}

func TestBuildRemovals(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, koku(t))
	in := install(t, cat, "costs", kokuPkg, "beta")
	p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t,
		sub("costs", kokuPkg, kokuPkg, "koku-metrics-operator.v4.4.1", true),
		sub("b", "gone", "gone-operator", "gone-operator.v1.0.0", true),
		sub("a", "gone-too", "gone-too", "", true),
		sub("c", "not-odlms", "not-odlms", "not-odlms.v1.0.0", false))})
	require.NoError(t, err)
	require.Len(t, p.Operators, 3)
	assert.Equal(t, []string{plan.ActionUnchanged, plan.ActionRemove, plan.ActionRemove},
		[]string{p.Operators[0].Action, p.Operators[1].Action, p.Operators[2].Action})
	assert.Equal(t, "a/gone-too", p.Operators[1].Namespace+"/"+p.Operators[1].Name)
	assert.Equal(t, "gone-operator.v1.0.0", p.Operators[2].From)
}

func TestBuildOpenShiftVersion(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, fusion(t))
	in := install(t, cat, "fusion", "openshift-fusion-access-operator", "stable-v1")
	cl := snapshot(t, sub("fusion", in.Name, in.Package, "openshift-fusion-access-operator.v1.0.0", true))
	for _, tc := range []struct {
		version string
		blocked []bool
	}{
		{"", []bool{false, false, false, false}},
		{"4.19", []bool{false, false, false, false}},
		{"4.20", []bool{true, false, false, false}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: cl, OpenShiftVersion: tc.version})
			require.NoError(t, err)
			var blocked []bool
			for _, h := range p.Operators[0].Path {
				blocked = append(blocked, h.OpenShiftBlocked)
			}
			assert.Equal(t, tc.blocked, blocked)
		})
	}
}

func TestBuildUnknowns(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, koku(t))
	for _, tc := range []struct {
		name string
		in   render.Install
		note string
	}{
		{"package not in the catalog", render.Install{Namespace: "x", Name: "nope", Package: "nope"}, "package nope is not in the catalog"},
		{"bundle unknown", render.Install{Namespace: "x", Name: kokuPkg, Package: kokuPkg, Channel: "beta"}, "the catalog does not know the bundle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := plan.Build(plan.Request{Installs: []render.Install{tc.in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t)})
			require.NoError(t, err)
			require.Len(t, p.Operators, 1)
			require.Len(t, p.Operators[0].Notes, 1)
			assert.Contains(t, strings.Join(p.Operators[0].Notes, "\n"), tc.note)
		})
	}
}

func TestBuildWithoutClusterIsAllInstalls(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, koku(t))
	p, err := plan.Build(plan.Request{Installs: []render.Install{install(t, cat, "costs", kokuPkg, "beta")}, Catalogs: catalog.Set{Plain: cat}})
	require.NoError(t, err)
	require.Len(t, p.Operators, 1)
	assert.Equal(t, plan.ActionInstall, p.Operators[0].Action)
}

func TestWritersEmptyPlan(t *testing.T) {
	t.Parallel()
	p, err := plan.Build(plan.Request{})
	require.NoError(t, err)
	j, err := p.JSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"operators": [], "objects": {"added": [], "changed": [], "unchanged": 0, "removed": []}, "notes": []}`, string(j))
	assert.Contains(t, string(p.Text()), "installs no operator")
	assert.Contains(t, string(p.Markdown()), "installs no operator")
	assert.Zero(t, p.Unsafe())
}

// TestBuildBadCSV: a CSV whose install strategy does not decode is a note naming it, not an
// error or a panic.
func TestBuildBadCSV(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, kubeGreen(t))
	in := install(t, cat, "kube-green", "kube-green", "alpha")
	cl := snapshot(t, sub("kube-green", "kube-green", "kube-green", "kube-green.v0.6.0", true),
		`{apiVersion: operators.coreos.com/v1alpha1, kind: ClusterServiceVersion, metadata: {name: kube-green.v0.6.0, namespace: kube-green},
		  spec: {install: {strategy: deployment, spec: {permissions: "not a list"}}}}`)
	p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: cl})
	require.NoError(t, err)
	require.Len(t, p.Operators, 1)
	assert.NotEmpty(t, p.Operators[0].RBAC.Added)
	require.NotEmpty(t, p.Operators[0].Notes)
	assert.Contains(t, strings.Join(p.Operators[0].Notes, "\n"), "ClusterServiceVersion kube-green/kube-green.v0.6.0: spec.install.spec")
}

// sleepInfoCRD is the older SleepInfo CRD of the kube-green-crd-changes plan case.
func sleepInfoCRD(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/plan/kube-green-crd-changes/snapshot/crd-sleepinfos.yaml")
	require.NoError(t, err)
	return string(b)
}

// TestBuildHostileCluster: objects of unexpected shapes are read as missing or become
// notes; nothing panics.
func TestBuildHostileCluster(t *testing.T) {
	t.Parallel()
	cat := loadCatalog(t, kubeGreen(t))
	in := install(t, cat, "kube-green", "kube-green", "alpha")
	for _, tc := range []struct {
		name   string
		objs   []string
		note   string
		stored bool
	}{
		{"installedCSV a number, labels a list", []string{`{apiVersion: operators.coreos.com/v1alpha1, kind: Subscription,
			metadata: {name: kube-green, namespace: kube-green, labels: [a]}, spec: {name: 3}, status: {installedCSV: 7}}`}, "", false},
		{"a CRD that is not one", []string{`{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition,
			metadata: {name: sleepinfos.kube-green.com}, spec: {versions: "none"}}`}, "old CRD", false},
		{"a custom resource without metadata", []string{sleepInfoCRD(t), `{apiVersion: kube-green.com/v1alpha1, kind: SleepInfo, spec: 5}`}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t, tc.objs...)})
			require.NoError(t, err)
			require.Len(t, p.Operators, 1)
			assert.Equal(t, tc.stored, len(p.Operators[0].StoredObjects) > 0, "stored objects: %v", p.Operators[0].StoredObjects)
			if tc.note != "" {
				require.NotEmpty(t, p.Operators[0].Notes)
				assert.Contains(t, strings.Join(p.Operators[0].Notes, "\n"), tc.note)
			}
		})
	}
}

// TestBuildChecksTheCRDsOfEachHop: with every bundle's contents (catalog.LoadOptions
// AllContents), kube-green's CRD is checked at each hop, v0.6.0 -> v0.7.0 -> v0.7.1, each
// against the one before: a field added at the first hop is a finding of v0.7.0, not of
// v0.7.1; without them, the head's CRD is checked against the cluster's and a note says
// how many hops were not.
func TestBuildChecksTheCRDsOfEachHop(t *testing.T) {
	t.Parallel()
	dir := kubeGreen(t)
	cluster := []string{sub("kube-green", "kube-green", "kube-green", "kube-green.v0.6.0", true), sleepInfoCRD(t)}
	for _, tc := range []struct {
		name    string
		all     bool
		bundles []string
		note    string
	}{
		{"every hop", true, []string{"kube-green.v0.7.0"}, ""},
		{"the head only", false, []string{"kube-green.v0.7.1"}, "CRDs of 1 of the 2 hops' bundles unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cat, err := inputs.LoadCatalogWith(catalog.LoadOptions{AllContents: tc.all}, []string{dir}, nil)
			require.NoError(t, err)
			in := install(t, cat, "kube-green", "kube-green", "alpha")
			p, err := plan.Build(plan.Request{Installs: []render.Install{in}, Catalogs: catalog.Set{Plain: cat}, Cluster: snapshot(t, cluster...)})
			require.NoError(t, err)
			op := p.Operators[0]
			require.NotEmpty(t, op.CRDChanges)
			var bundles []string
			for _, c := range op.CRDChanges {
				if !slices.Contains(bundles, c.Bundle) {
					bundles = append(bundles, c.Bundle)
				}
			}
			assert.Equal(t, tc.bundles, bundles)
			if tc.note != "" {
				assert.Contains(t, strings.Join(op.Notes, "\n"), tc.note)
			}
		})
	}
}
