package mirror_test

import (
	"context"
	"testing"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/odlm-render/odlm-render/internal/mirror"
	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/pkg/catalog"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestOnTheWayIsOLMs: for every bundle of the case catalog's channel as a startingCSV, the
// bundles the mirror lists for the install (the startingCSV, each one after it, the head)
// are the CSVs OLM v0's own resolver installs, InstallPlan after InstallPlan, in a namespace
// with a fresh Subscription naming that startingCSV (Automatic approval).
func TestOnTheWayIsOLMs(t *testing.T) {
	t.Parallel()
	c := load(t, "../../testdata/mirror/starting-csv-behind-head/catalog")
	pkg, ok := c.Package("web-operator")
	require.True(t, ok)
	headBundle := head(t, c, "web-operator", "stable")
	r, err := olmresolve.ServePackages(context.Background(), "openshift-marketplace/example-catalog", pkg)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	for _, start := range pkg.BundleNames() {
		t.Run(start, func(t *testing.T) {
			cluster := olmresolve.Cluster{
				OperatorGroups: []*operatorsv1.OperatorGroup{{ObjectMeta: metav1.ObjectMeta{Name: "og", Namespace: "web"}}},
				Subscriptions: []*v1alpha1.Subscription{{
					ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "web"},
					Spec: &v1alpha1.SubscriptionSpec{Package: "web-operator", Channel: "stable", CatalogSource: "example-catalog",
						CatalogSourceNamespace: "openshift-marketplace", StartingCSV: start, InstallPlanApproval: v1alpha1.ApprovalAutomatic},
				}},
			}
			walk, err := r.Walk(context.Background(), cluster, "web")
			require.NoError(t, err)
			var olm []string
			for _, plan := range walk.Plans {
				for _, in := range plan.Installs {
					olm = append(olm, in.CSV)
				}
			}
			in := render.Install{Namespace: "web", Name: "web", Package: "web-operator", Channel: "stable", Bundle: headBundle,
				CatalogSource: "openshift-marketplace/example-catalog", CatalogImage: "quay.io/example/catalog:v1"}
			if start != headBundle.Name {
				in.StartingCSV = start
			}
			plan := mirror.New([]render.Install{in}, catalog.Set{Plain: c})
			require.Len(t, plan.Operators, 1)
			assert.Equal(t, olm, append(plan.Operators[0].OnTheWay, plan.Operators[0].Bundle))
			assert.Empty(t, plan.Warnings)
		})
	}
}

// webInstall is the case catalog of starting-csv-behind-head and an install of the head of
// web-operator's channel stable from it.
func webInstall(t *testing.T) (*catalog.Catalog, render.Install) {
	t.Helper()
	c := load(t, "../../testdata/mirror/starting-csv-behind-head/catalog")
	return c, render.Install{Namespace: "web", Name: "web", Package: "web-operator", Channel: "stable", Bundle: head(t, c, "web-operator", "stable"),
		CatalogSource: "openshift-marketplace/example-catalog", CatalogImage: "quay.io/example/catalog:v1"}
}

// TestOnTheWayFromTheInstalledCSV: a Subscription that has v1.0.0 installed needs the bundles
// of OLM's updates from it, not v1.0.0 itself (the cluster has it); the range still starts at
// the lowest update.
func TestOnTheWayFromTheInstalledCSV(t *testing.T) {
	t.Parallel()
	c, in := webInstall(t)
	in.InstalledCSV = "web-operator.v1.0.0"
	plan := mirror.New([]render.Install{in}, catalog.Set{Plain: c})
	require.Len(t, plan.Operators, 1)
	assert.Equal(t, []string{"web-operator.v1.1.0"}, plan.Operators[0].OnTheWay)
	require.Len(t, plan.Catalogs, 1)
	assert.Equal(t, "1.1.0", plan.Catalogs[0].Packages[0].MinVersion)
	assert.Equal(t, "1.3.0", plan.Catalogs[0].Packages[0].Version)
}

// TestOnTheWayUnknownStartingCSV: a startingCSV the catalog does not have is a warning, and
// only the head is listed.
func TestOnTheWayUnknownStartingCSV(t *testing.T) {
	t.Parallel()
	c, in := webInstall(t)
	in.StartingCSV = "web-operator.v0.9.0"
	plan := mirror.New([]render.Install{in}, catalog.Set{Plain: c})
	require.Len(t, plan.Warnings, 1)
	assert.Contains(t, plan.Warnings[0].Msg, "startingCSV web-operator.v0.9.0 is not a bundle of package web-operator")
	assert.Empty(t, plan.Operators[0].OnTheWay)
}
