package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// TestPlanGoldenPathsAreOLMs checks every plan golden case's hops against OLM v0's own
// resolver (internal/olmresolve: OLM's step resolver on the case's catalogs served as opm
// serve serves them): for each operator the plan upgrades, OLM's updates from the installed
// CSV, one InstallPlan at a time, up to the plan's target, are the plan's hops. Dependencies
// are left out of the catalog given to OLM: a bundle whose dependency the case's catalogs lack
// is not installed at all (issue 33: the plan will say so). The installed version is the
// catalog bundle's, else the one the CSV's name ends with (a pruned CSV).
func TestPlanGoldenPathsAreOLMs(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(planData)
	require.NoError(t, err)
	var withHops atomic.Int64
	t.Cleanup(func() {
		if !t.Skipped() && !t.Failed() {
			assert.GreaterOrEqual(t, withHops.Load(), int64(2), "operators whose hops were compared (the cases with project-written catalogs have two)")
		}
	})
	for _, e := range entries {
		dir := filepath.Join(planData, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			c := loadPlanCase(t, dir)
			if slices.Contains(c.Args, "v1") {
				return // OLM v1's paths are operator-controller's: internal/olmv1resolve checks them against its own resolver
			}
			b, err := os.ReadFile(filepath.Join(dir, "expected", "stdout.json"))
			require.NoError(t, err)
			var plan struct {
				Operators []struct {
					Package, Channel, Action, From, To string
					Path                               []struct{ From, To string }
				}
			}
			require.NoError(t, json.Unmarshal(b, &plan))
			var paths []string
			for _, entry := range c.Catalogs {
				_, path, err := inputs.SplitNamedPath(entry, naming.GlobalCatalogNamespace)
				require.NoError(t, err)
				paths = append(paths, path)
			}
			cat, err := catalog.Load(paths...)
			require.NoError(t, err)
			for _, op := range plan.Operators {
				if op.From == "" || op.Action == "remove" {
					continue
				}
				pkg, ok := cat.Package(op.Package)
				require.True(t, ok, op.Package)
				want := olmHops(t, pkg, op.Channel, op.From, op.To)
				var got []string
				for _, h := range op.Path {
					got = append(got, h.From+" -> "+h.To)
				}
				assert.Equal(t, want, got, "%s from %s in channel %s", op.Package, op.From, op.Channel)
				if len(got) > 0 {
					withHops.Add(1)
				}
			}
		})
	}
}

// olmHops are OLM's updates of pkg in channel from the installed CSV up to target (all of
// them when it never reaches target; none when opm serve refuses the package).
func olmHops(t *testing.T, pkg *catalog.Package, channel, installed, target string) []string {
	t.Helper()
	r, err := olmresolve.ServePackages(context.Background(), "olm/cs", olmresolve.WithoutDependencies(pkg))
	if refused := (*olmresolve.RefusedError)(nil); errors.As(err, &refused) {
		return nil
	}
	require.NoError(t, err)
	defer r.Close()
	version := ""
	if b, ok := pkg.Bundles[installed]; ok {
		version = b.Version
	} else if _, v, ok := strings.Cut(installed, ".v"); ok {
		version = v
	}
	walk, err := r.Upgrade(context.Background(), olmresolve.Operator{
		Package: pkg.Name, Channel: channel, CatalogSource: "olm/cs", InstalledCSV: installed, InstalledVersion: version,
	})
	require.NoError(t, err)
	var out []string
	for _, h := range walk.Hops() {
		if installed == target {
			break // the plan shows no hop once at the target: the loop is a note
		}
		out = append(out, h[0]+" -> "+h[1])
		if h[1] == target {
			break
		}
	}
	return out
}
