package render_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestDependencyCasesAreOLMs: for every golden case about dependencies or named catalogs,
// OLM v0's own resolver (internal/olmresolve), given the same catalogs as the CatalogSources
// they are the content of (priorities from the CatalogSource objects) and the cluster the
// render's output makes (its Subscriptions and OperatorGroups, the cluster's CSVs and
// Subscriptions from the case's inputs and snapshot), installs in each namespace exactly the
// dependencies the render reports (the Subscriptions --dependencies subscriptions writes:
// package, bundle and CatalogSource), or fails where the render reports an error.
func TestDependencyCasesAreOLMs(t *testing.T) {
	entries, err := os.ReadDir(casesDir)
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "dependency-") && !strings.HasPrefix(name, "catalogs-named-") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			in, opts := loadCase(t, filepath.Join(casesDir, name))
			opts.Dependencies = render.DependenciesSubscriptions
			out := render.Render(in, opts)
			renderFailed := out.Results.HasErrors()

			priorities := map[string]int{}
			var keys []string
			for _, cs := range out.CatalogSources {
				priorities[cs.Key()] = cs.Priority
				keys = append(keys, cs.Key())
			}
			cluster, namespaces, rendered := clusterOf(t, out, opts)
			for _, inst := range out.Installs {
				keys = append(keys, inst.CatalogSource)
			}
			slices.Sort(keys)
			sources, err := olmresolve.SourcesOf(in.Catalogs(), slices.Compact(keys), priorities)
			require.NoError(t, err)
			r, err := olmresolve.New(context.Background(), sources, opts.GlobalNamespace())
			require.NoError(t, err)
			defer r.Close()

			olmFailed := false
			var olmDeps []string
			for _, ns := range namespaces {
				res, err := r.Resolve(cluster, ns)
				if err != nil {
					t.Logf("OLM: namespace %s: %v", ns, err)
					olmFailed = true
					continue
				}
				for _, s := range res.Created {
					olmDeps = append(olmDeps, strings.Join([]string{s.Namespace, s.Name, s.Spec.Package, s.Status.CurrentCSV, s.Spec.CatalogSourceNamespace + "/" + s.Spec.CatalogSource}, " "))
				}
			}
			slices.Sort(olmDeps)
			assert.Equal(t, olmFailed, renderFailed, "OLM's resolution fails where the render reports an error: %v", out.Results.Errors())
			if !olmFailed {
				assert.Equal(t, olmDeps, rendered, "the dependencies OLM installs")
			}
		})
	}
	require.NotZero(t, n)
}

// clusterOf is the OLM state the render's output makes, with the cluster's objects the case
// gives (CSVs and Subscriptions among its inputs and snapshot): the namespaces to resolve,
// and the dependency Subscriptions the render wrote as "namespace name package CSV source".
func clusterOf(t *testing.T, out render.Output, opts render.Options) (olmresolve.Cluster, []string, []string) {
	t.Helper()
	var cluster olmresolve.Cluster
	var namespaces, deps []string
	objects := slices.Clone(out.Objects)
	if opts.Sources != nil {
		for _, kind := range []string{"ClusterServiceVersion", "Subscription"} {
			found, err := opts.Sources.List("operators.coreos.com/v1alpha1", kind, "")
			require.NoError(t, err)
			for _, m := range found {
				objects = append(objects, manifest.New(m))
			}
		}
	}
	seen := map[manifest.Key]bool{}
	for _, o := range objects {
		if seen[o.Ref().Key()] {
			continue
		}
		seen[o.Ref().Key()] = true
		switch o.Kind() {
		case "Subscription":
			var s v1alpha1.Subscription
			decode(t, o, &s)
			if _, ours := o.Labels()["operator.ibm.com/opreq-control"]; !ours && s.Spec.StartingCSV != "" && out.Generated[o] {
				deps = append(deps, strings.Join([]string{s.Namespace, s.Name, s.Spec.Package, s.Spec.StartingCSV, s.Spec.CatalogSourceNamespace + "/" + s.Spec.CatalogSource}, " "))
				continue // a dependency Subscription: what OLM must create itself
			}
			cluster.Subscriptions = append(cluster.Subscriptions, &s)
			if !slices.Contains(namespaces, s.Namespace) {
				namespaces = append(namespaces, s.Namespace)
			}
		case "OperatorGroup":
			var og operatorsv1.OperatorGroup
			decode(t, o, &og)
			cluster.OperatorGroups = append(cluster.OperatorGroups, &og)
		case "ClusterServiceVersion":
			var csv v1alpha1.ClusterServiceVersion
			decode(t, o, &csv)
			csv.Status.Phase = v1alpha1.CSVPhaseSucceeded
			cluster.CSVs = append(cluster.CSVs, &csv)
		}
	}
	slices.Sort(namespaces)
	slices.Sort(deps)
	return cluster, namespaces, deps
}

func decode(t *testing.T, o *manifest.Object, into any) {
	t.Helper()
	b, err := json.Marshal(o.Map)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, into))
}
