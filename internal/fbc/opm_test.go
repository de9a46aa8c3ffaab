package fbc_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
	"github.com/odlm-render/odlm-render/internal/olmresolve"
	"github.com/odlm-render/odlm-render/internal/refdata"
)

// opmBase is a catalog opm serves: package a, channel stable, v1.0.0 <- v1.1.0.
const opmBase = `schema: olm.package
name: a
defaultChannel: stable
---
schema: olm.channel
package: a
name: stable
entries:
- {name: a.v1.0.0}
- {name: a.v1.1.0, replaces: a.v1.0.0}
---
schema: olm.bundle
package: a
name: a.v1.0.0
image: quay.io/example/a-bundle:v1.0.0
properties:
- {type: olm.package, value: {packageName: a, version: 1.0.0}}
---
schema: olm.bundle
package: a
name: a.v1.1.0
image: quay.io/example/a-bundle:v1.1.0
properties:
- {type: olm.package, value: {packageName: a, version: 1.1.0}}
`

// TestOPMRefusalsAreOPMs: for each catalog, OPMRefusals says what opm says: operator-registry's
// own cache build (olmresolve.Refusal, what `opm serve` runs on start) refuses exactly the
// catalogs OPMRefusals names a reason for, and the reason names what opm's does.
func TestOPMRefusalsAreOPMs(t *testing.T) {
	t.Parallel()
	entry := func(from, to string) string { return strings.Replace(opmBase, from, to, 1) }
	for _, tc := range []struct {
		name, text string
		want       string // a part of the reason, "" when opm serves the catalog
	}{
		{"served", opmBase, ""},
		{"leading marker", "---\n" + opmBase, ""},
		{"trailing marker", opmBase + "---\n", ""},
		{"comment before the first blob", "# a comment\n" + opmBase, ""},
		{"comment after a marker, before a blob", "---\n# a comment\n" + opmBase, ""},
		{"document end", opmBase + "...\n", ""},
		{"two markers between blobs", strings.Replace(opmBase, "---\nschema: olm.channel", "---\n---\nschema: olm.channel", 1), ""},
		{"two markers first", "---\n---\n" + opmBase, "no schema"},
		{"three markers between blobs", strings.Replace(opmBase, "---\nschema: olm.channel", "---\n---\n---\nschema: olm.channel", 1), "no schema"},
		{"blank line first", "\n---\n" + opmBase, "no schema"},
		{"comment-only document first", "# a comment\n---\n" + opmBase, "no schema"},
		{"comment-only document between", strings.Replace(opmBase, "---\nschema: olm.channel", "---\n# nothing\n---\nschema: olm.channel", 1), "no schema"},
		{"comment-only document last", opmBase + "---\n# trailing\n", "no schema"},
		{"blank document", opmBase + "---\n\n\n", "no schema"},
		{"stranded bundle", entry("- {name: a.v1.1.0, replaces: a.v1.0.0}", "- {name: a.v1.1.0, replaces: a.v1.0.0}\n- {name: a.v1.2.0, replaces: a.v1.1.0, skips: [a.v1.1.0]}") +
			"---\nschema: olm.bundle\npackage: a\nname: a.v1.2.0\nimage: quay.io/example/a-bundle:v1.2.0\nproperties:\n- {type: olm.package, value: {packageName: a, version: 1.2.0}}\n", "stranded bundles: a.v1.0.0"},
		{"two heads", entry("- {name: a.v1.1.0, replaces: a.v1.0.0}", "- {name: a.v1.1.0}"), "multiple channel heads"},
		{"cycle", entry("- {name: a.v1.0.0}", "- {name: a.v1.0.0, replaces: a.v1.1.0}"), "no channel head"},
		{"invalid skipRange", entry("- {name: a.v1.1.0, replaces: a.v1.0.0}", "- {name: a.v1.1.0, replaces: a.v1.0.0, skipRange: '>=1.0.0 <<1.1.0'}"), "invalid skipRange"},
		{"empty skip", entry("- {name: a.v1.1.0, replaces: a.v1.0.0}", "- {name: a.v1.1.0, replaces: a.v1.0.0, skips: ['']}"), "skip[0] is empty"},
		{"bundle in no channel", opmBase + "---\nschema: olm.bundle\npackage: a\nname: a.v2.0.0\nimage: quay.io/example/a-bundle:v2.0.0\nproperties:\n- {type: olm.package, value: {packageName: a, version: 2.0.0}}\n", "no channel lists the bundle"},
		{"two bundles, one version", strings.Replace(opmBase, "version: 1.1.0", "version: 1.0.0", 1), "duplicate versions"},
		{"version not semver", strings.Replace(opmBase, "version: 1.1.0", "version: v1.1", 1), "not strict semver"},
		{"no default channel", strings.Replace(opmBase, "defaultChannel: stable\n", "", 1), "default channel must be set"},
		{"package name not a label", strings.ReplaceAll(strings.ReplaceAll(opmBase, "package: a\n", "package: A_b\n"), "name: a\n", "name: A_b\n"), "DNS-1123"},
		{"entry listed twice", entry("- {name: a.v1.0.0}", "- {name: a.v1.0.0}\n- {name: a.v1.0.0}"), "listed twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.yaml"), []byte(tc.text), 0o644))
			opm := olmresolve.Refusal(context.Background(), os.DirFS(dir))
			var refused *olmresolve.RefusedError
			if opm != nil {
				require.True(t, errors.As(opm, &refused), "opm: %v", opm)
			}
			c, err := fbc.Load(dir)
			if err != nil {
				// what this package refuses itself, opm must refuse too
				assert.NotNil(t, refused, "fbc.Load refuses what opm serves: %v", err)
				return
			}
			got := c.OPMRefusals()
			if tc.want == "" {
				assert.Nil(t, refused, "opm refuses the catalog")
				assert.Empty(t, got)
				return
			}
			require.NotNil(t, refused, "opm serves the catalog")
			require.NotEmpty(t, got, "opm refuses it: %v", refused)
			var texts []string
			for _, e := range got {
				texts = append(texts, e.Error())
			}
			assert.Contains(t, strings.Join(texts, "\n"), tc.want, "opm: %s", refused.Reason)
		})
	}
}

// TestOPMRefusalsOfTheCatalogsRead: every catalog the project's examples and tests read, and
// the real catalogs of the reference data, gets the same answer from OPMRefusals as from opm's
// own cache build: served (none listed) or refused.
func TestOPMRefusalsOfTheCatalogsRead(t *testing.T) {
	t.Parallel()
	dirs := []string{
		"../../examples/quickstart/catalog", "../../examples/argocd/catalog",
		"../../testdata/catalogs-dependencies/certified", "../../testdata/catalogs-dependencies/community", "../../testdata/catalogs-dependencies/redhat",
		"../../testdata/mirror/dependency-added-by-olm/catalog", "../../testdata/mirror/starting-csv-behind-head/catalog",
	}
	for _, pattern := range []string{"../../testdata/plan/*/catalog", "../../testdata/render/*/catalog"} {
		found, err := filepath.Glob(pattern)
		require.NoError(t, err)
		dirs = append(dirs, found...)
	}
	require.Contains(t, dirs, "../../testdata/render/catalog-opm-refuses/catalog", "a catalog opm refuses")
	for _, rel := range []string{"catalogs-community-v4.16", "catalogs-community-v4.20-three-packages", "odlm-render-testdata/testdata/catalogs/community", "odlm-render-testdata/testdata/catalogs/certified"} {
		dirs = append(dirs, refdata.Path(t, rel))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			opm := olmresolve.Refusal(context.Background(), os.DirFS(dir))
			c, err := fbc.Load(dir)
			require.NoError(t, err)
			got := c.OPMRefusals()
			if opm == nil {
				assert.Empty(t, got, "opm serves %s", dir)
			} else {
				assert.NotEmpty(t, got, "opm refuses %s: %v", dir, opm)
			}
		})
	}
}
