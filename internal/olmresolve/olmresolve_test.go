package olmresolve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/blang/semver/v4"
	"github.com/operator-framework/api/pkg/lib/version"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/odlm-render/odlm-render/internal/olmresolve"
)

const ns = "operators"

// bundle is one olm.bundle blob of a test catalog.
type bundle struct {
	pkg, name, version string
	extra              []string // more properties, as JSON objects
}

// catalogFS writes a small file-based catalog: packages with their default channel, channels
// with their entries (JSON objects), bundles.
func catalogFS(t *testing.T, packages map[string]string, channels map[string][]string, bundles []bundle) fstest.MapFS {
	t.Helper()
	var docs []string
	for pkg, def := range packages {
		docs = append(docs, fmt.Sprintf(`{"schema":"olm.package","name":%q,"defaultChannel":%q}`, pkg, def))
	}
	for key, entries := range channels {
		pkg, ch, ok := strings.Cut(key, "/")
		require.True(t, ok, key)
		docs = append(docs, fmt.Sprintf(`{"schema":"olm.channel","package":%q,"name":%q,"entries":[%s]}`, pkg, ch, strings.Join(entries, ",")))
	}
	for _, b := range bundles {
		props := append([]string{fmt.Sprintf(`{"type":"olm.package","value":{"packageName":%q,"version":%q}}`, b.pkg, b.version)}, b.extra...)
		docs = append(docs, fmt.Sprintf(`{"schema":"olm.bundle","package":%q,"name":%q,"image":"example.com/%s:v%s","properties":[%s]}`,
			b.pkg, b.name, b.pkg, b.version, strings.Join(props, ",")))
	}
	return fstest.MapFS{"catalog/catalog.json": {Data: []byte(strings.Join(docs, "\n"))}}
}

func operatorGroup() *operatorsv1.OperatorGroup {
	return &operatorsv1.OperatorGroup{ObjectMeta: metav1.ObjectMeta{Name: "og", Namespace: ns}}
}

func subscription(pkg, source, installed string) *v1alpha1.Subscription {
	return &v1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: pkg, Namespace: ns},
		Spec: &v1alpha1.SubscriptionSpec{
			Package: pkg, Channel: "stable", CatalogSource: source, CatalogSourceNamespace: "olm",
			InstallPlanApproval: v1alpha1.ApprovalAutomatic,
		},
		Status: v1alpha1.SubscriptionStatus{InstalledCSV: installed, CurrentCSV: installed},
	}
}

// csv is an installed CSV as OLM leaves it: its version and its bundle's package property.
func csv(t *testing.T, pkg, name, v string) *v1alpha1.ClusterServiceVersion {
	t.Helper()
	props, err := json.Marshal(map[string]any{"properties": []any{map[string]any{
		"type": "olm.package", "value": map[string]string{"packageName": pkg, "version": v},
	}}})
	require.NoError(t, err)
	return &v1alpha1.ClusterServiceVersion{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: map[string]string{"operatorframework.io/properties": string(props)}},
		Spec:       v1alpha1.ClusterServiceVersionSpec{Version: version.OperatorVersion{Version: semver.MustParse(v)}},
		Status:     v1alpha1.ClusterServiceVersionStatus{Phase: v1alpha1.CSVPhaseSucceeded},
	}
}

// installed is a namespace where pkg's Subscription (channel stable, catalog cs) has installed
// pkg.v<v>.
func installed(t *testing.T, pkg, v string) olmresolve.Cluster {
	t.Helper()
	name := pkg + ".v" + v
	return olmresolve.Cluster{
		OperatorGroups: []*operatorsv1.OperatorGroup{operatorGroup()},
		Subscriptions:  []*v1alpha1.Subscription{subscription(pkg, "cs", name)},
		CSVs:           []*v1alpha1.ClusterServiceVersion{csv(t, pkg, name, v)},
	}
}

// subscribed is a namespace with a new Subscription to pkg in source, nothing installed.
func subscribed(pkg, source string) olmresolve.Cluster {
	return olmresolve.Cluster{
		OperatorGroups: []*operatorsv1.OperatorGroup{operatorGroup()},
		Subscriptions:  []*v1alpha1.Subscription{subscription(pkg, source, "")},
	}
}

func newResolver(t *testing.T, sources ...olmresolve.Source) *olmresolve.Resolver {
	t.Helper()
	r, err := olmresolve.New(context.Background(), sources, "olm")
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

// plans lists a walk's InstallPlans as "replaced -> installed" lines.
func plans(w olmresolve.Walk) []string {
	var out []string
	for _, p := range w.Plans {
		out = append(out, p.String())
	}
	return out
}

// TestWalkReachesAPrunedCSVBySkipRange: the installed CSV is no longer in the catalog (a
// single-bundle channel), and the head's skipRange holds the cluster CSV's version: OLM
// upgrades (OLM's resolver reads the installed version from the CSV's spec.version).
func TestWalkReachesAPrunedCSVBySkipRange(t *testing.T) {
	cat := catalogFS(t, map[string]string{"foo": "stable"},
		map[string][]string{"foo/stable": {`{"name":"foo.v2.0.0","skipRange":">=1.0.0 <2.0.0"}`}},
		[]bundle{{pkg: "foo", name: "foo.v2.0.0", version: "2.0.0"}})
	r := newResolver(t, olmresolve.Source{Name: "cs", Namespace: "olm", FBC: cat})
	cluster := installed(t, "foo", "1.0.0")
	w, err := r.Walk(context.Background(), cluster, ns)
	require.NoError(t, err)
	assert.Equal(t, []string{"foo.v1.0.0 -> foo.v2.0.0"}, plans(w))
	assert.Empty(t, w.Repeats)
}

// TestWalkNeverChoosesADeprecatedBundle: v1.1.0 replaces the installed v1.0.0 but carries
// olm.deprecated; v1.2.0 replaces v1.1.0 only: OLM does not move.
func TestWalkNeverChoosesADeprecatedBundle(t *testing.T) {
	cat := catalogFS(t, map[string]string{"foo": "stable"},
		map[string][]string{"foo/stable": {
			`{"name":"foo.v1.0.0"}`,
			`{"name":"foo.v1.1.0","replaces":"foo.v1.0.0"}`,
			`{"name":"foo.v1.2.0","replaces":"foo.v1.1.0"}`,
		}},
		[]bundle{
			{pkg: "foo", name: "foo.v1.0.0", version: "1.0.0"},
			{pkg: "foo", name: "foo.v1.1.0", version: "1.1.0", extra: []string{`{"type":"olm.deprecated","value":{}}`}},
			{pkg: "foo", name: "foo.v1.2.0", version: "1.2.0"},
		})
	r := newResolver(t, olmresolve.Source{Name: "cs", Namespace: "olm", FBC: cat})
	cluster := installed(t, "foo", "1.0.0")
	w, err := r.Walk(context.Background(), cluster, ns)
	require.NoError(t, err)
	assert.Empty(t, plans(w))
}

// TestWalkFindsTheLoop: at the head v2.0.0, the older entry v1.0.0's skipRange holds 2.0.0,
// so OLM moves back to v1.0.0, then v2.0.0 replaces it again: the walk reports the repeat.
func TestWalkFindsTheLoop(t *testing.T) {
	cat := catalogFS(t, map[string]string{"foo": "stable"},
		map[string][]string{"foo/stable": {
			`{"name":"foo.v1.0.0","skipRange":">=2.0.0 <3.0.0"}`,
			`{"name":"foo.v2.0.0","replaces":"foo.v1.0.0"}`,
		}},
		[]bundle{{pkg: "foo", name: "foo.v1.0.0", version: "1.0.0"}, {pkg: "foo", name: "foo.v2.0.0", version: "2.0.0"}})
	r := newResolver(t, olmresolve.Source{Name: "cs", Namespace: "olm", FBC: cat})
	cluster := installed(t, "foo", "2.0.0")
	w, err := r.Walk(context.Background(), cluster, ns)
	require.NoError(t, err)
	assert.Equal(t, []string{"foo.v2.0.0 -> foo.v1.0.0", "foo.v1.0.0 -> foo.v2.0.0"}, plans(w))
	assert.Equal(t, "foo.v1.0.0 -> foo.v2.0.0", w.Repeats)
}

// TestResolveAddsADependency: bar requires package foo >=1.0.0; subscribing to bar alone,
// OLM installs foo's default channel head too and creates a Subscription for it.
func TestResolveAddsADependency(t *testing.T) {
	cat := catalogFS(t, map[string]string{"foo": "stable", "bar": "stable"},
		map[string][]string{"foo/stable": {`{"name":"foo.v1.0.0"}`}, "bar/stable": {`{"name":"bar.v1.0.0"}`}},
		[]bundle{
			{pkg: "foo", name: "foo.v1.0.0", version: "1.0.0"},
			{pkg: "bar", name: "bar.v1.0.0", version: "1.0.0", extra: []string{`{"type":"olm.package.required","value":{"packageName":"foo","versionRange":">=1.0.0"}}`}},
		})
	r := newResolver(t, olmresolve.Source{Name: "cs", Namespace: "olm", FBC: cat})
	cluster := subscribed("bar", "cs")
	res, err := r.Resolve(cluster, ns)
	require.NoError(t, err)
	assert.Equal(t, "bar.v1.0.0, foo.v1.0.0", res.String())
	var names []string
	for _, s := range append(res.Updated, res.Created...) {
		names = append(names, s.Name+"="+s.Status.CurrentCSV)
	}
	assert.Equal(t, []string{"bar=bar.v1.0.0", "foo-stable-cs-olm=foo.v1.0.0"}, names)
}

// TestResolveUnsatisfiable: bar requires a package no catalog has: OLM's error.
func TestResolveUnsatisfiable(t *testing.T) {
	cat := catalogFS(t, map[string]string{"bar": "stable"},
		map[string][]string{"bar/stable": {`{"name":"bar.v1.0.0"}`}},
		[]bundle{{pkg: "bar", name: "bar.v1.0.0", version: "1.0.0", extra: []string{`{"type":"olm.package.required","value":{"packageName":"foo","versionRange":">=1.0.0"}}`}}})
	r := newResolver(t, olmresolve.Source{Name: "cs", Namespace: "olm", FBC: cat})
	cluster := subscribed("bar", "cs")
	_, err := r.Resolve(cluster, ns)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "foo")
}

// TestRefusedCatalogServesNothing: a channel with two heads is refused by opm serve; the
// source is reported and nothing resolves from it.
func TestRefusedCatalogServesNothing(t *testing.T) {
	cat := catalogFS(t, map[string]string{"foo": "stable"},
		map[string][]string{"foo/stable": {`{"name":"foo.v1.0.0"}`, `{"name":"foo.v2.0.0"}`}},
		[]bundle{{pkg: "foo", name: "foo.v1.0.0", version: "1.0.0"}, {pkg: "foo", name: "foo.v2.0.0", version: "2.0.0"}})
	r := newResolver(t, olmresolve.Source{Name: "cs", Namespace: "olm", FBC: cat})
	require.Error(t, r.Refused("olm", "cs"))
	assert.Contains(t, r.Refused("olm", "cs").Error(), "head")
	cluster := subscribed("foo", "cs")
	_, err := r.Resolve(cluster, ns)
	require.Error(t, err)
}

// TestDependencyCatalogOrder: two CatalogSources offer the required package. OLM prefers the
// dependent's own CatalogSource, ahead of any priority; failing that, the higher priority.
func TestDependencyCatalogOrder(t *testing.T) {
	fooCatalog := func(v string) fstest.MapFS {
		return catalogFS(t, map[string]string{"foo": "stable"},
			map[string][]string{"foo/stable": {`{"name":"foo.v` + v + `"}`}},
			[]bundle{{pkg: "foo", name: "foo.v" + v, version: v}})
	}
	requiresFoo := `{"type":"olm.package.required","value":{"packageName":"foo","versionRange":">=1.0.0"}}`
	withBar := func(cat fstest.MapFS) fstest.MapFS {
		bar := catalogFS(t, map[string]string{"bar": "stable"},
			map[string][]string{"bar/stable": {`{"name":"bar.v1.0.0"}`}},
			[]bundle{{pkg: "bar", name: "bar.v1.0.0", version: "1.0.0", extra: []string{requiresFoo}}})
		out := fstest.MapFS{}
		for k, v := range cat {
			out[k] = v
		}
		out["catalog/bar.json"] = bar["catalog/catalog.json"]
		return out
	}
	barOnly := catalogFS(t, map[string]string{"bar": "stable"},
		map[string][]string{"bar/stable": {`{"name":"bar.v1.0.0"}`}},
		[]bundle{{pkg: "bar", name: "bar.v1.0.0", version: "1.0.0", extra: []string{requiresFoo}}})
	tests := []struct {
		name    string
		sources []olmresolve.Source
		barIn   string
		want    string
	}{
		{
			name: "the higher priority when the dependent's catalog lacks it",
			sources: []olmresolve.Source{
				{Name: "a", Namespace: "olm", FBC: fooCatalog("1.0.0")},
				{Name: "b", Namespace: "olm", Priority: 10, FBC: fooCatalog("2.0.0")},
				{Name: "c", Namespace: "olm", FBC: barOnly},
			},
			barIn: "c", want: "olm/b foo.v2.0.0",
		},
		{
			name: "the dependent's own catalog ahead of a higher priority",
			sources: []olmresolve.Source{
				{Name: "a", Namespace: "olm", FBC: withBar(fooCatalog("1.0.0"))},
				{Name: "b", Namespace: "olm", Priority: 10, FBC: fooCatalog("2.0.0")},
			},
			barIn: "a", want: "olm/a foo.v1.0.0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newResolver(t, tt.sources...)
			res, err := r.Resolve(subscribed("bar", tt.barIn), ns)
			require.NoError(t, err)
			var got []string
			for _, in := range res.Installs {
				if strings.HasPrefix(in.CSV, "foo.") {
					got = append(got, in.CatalogSource+" "+in.CSV)
				}
			}
			assert.Equal(t, []string{tt.want}, got)
		})
	}
}
