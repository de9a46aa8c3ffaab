package fbc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

// facts renders everything a renderer can read from a catalog, except
// where each blob came from, as text: two catalogs with equal facts are the
// same catalog. Examples are compared parsed (their text may be formatted
// differently), with the error of Examples when there is one.
func facts(t testing.TB, c *fbc.Catalog) string {
	t.Helper()
	var b strings.Builder
	for _, pn := range c.PackageNames() {
		p, _ := c.Package(pn)
		fmt.Fprintf(&b, "package %s default=%q\n", p.Name, p.DefaultChannel)
		for _, cn := range p.ChannelNames() {
			ch := p.Channels[cn]
			head, err := ch.Head()
			if err != nil {
				var ce *fbc.Error
				require.ErrorAs(t, err, &ce)
				head = "ERROR " + ce.Err.Error()
			}
			fmt.Fprintf(&b, "  channel %s head=%s\n", cn, head)
			for _, e := range ch.Entries {
				fmt.Fprintf(&b, "    entry %+v\n", e)
			}
			if hb, err := p.HeadBundle(cn); err == nil {
				fmt.Fprintf(&b, "    head bundle %s\n", hb.Name)
			}
			if d, ok := p.DeprecationFor("olm.channel", cn); ok {
				fmt.Fprintf(&b, "    deprecated: %q\n", d.Message)
			}
		}
		for _, bn := range p.BundleNames() {
			bu := p.Bundles[bn]
			fmt.Fprintf(&b, "  bundle %s pkg=%s version=%q image=%q csv=%q display=%q skipRange=%q minKubeVersion=%q\n",
				bu.Name, bu.Package, bu.Version, bu.Image, bu.CSVName, bu.DisplayName, bu.SkipRange, bu.MinKubeVersion)
			fmt.Fprintf(&b, "    modes=%v provided=%v required=%v packages=%v\n", bu.InstallModes, bu.ProvidedGVKs, bu.RequiredGVKs, bu.RequiredPackages)
			fmt.Fprintf(&b, "    relatedImages known=%v %q\n", bu.RelatedImagesKnown, bu.RelatedImages)
			for _, pr := range bu.Properties {
				v, err := json.Marshal(pr.Value)
				require.NoError(t, err)
				fmt.Fprintf(&b, "    property %s %s\n", pr.Type, v)
			}
			var keys []string
			for k := range bu.Annotations {
				if k != "alm-examples" {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, "    annotation %s=%q\n", k, bu.Annotations[k])
			}
			ex, err := bu.Examples()
			if err != nil {
				var ce *fbc.Error
				require.ErrorAs(t, err, &ce)
				fmt.Fprintf(&b, "    examples error: %v\n", ce.Err)
			} else {
				v, err := json.Marshal(ex)
				require.NoError(t, err)
				fmt.Fprintf(&b, "    examples %s\n", v)
			}
			if d, ok := p.DeprecationFor("olm.bundle", bn); ok {
				fmt.Fprintf(&b, "    deprecated: %q\n", d.Message)
			}
		}
		for _, d := range p.Deprecations {
			fmt.Fprintf(&b, "  deprecation %+v %q\n", d.Reference, d.Message)
		}
	}
	return b.String()
}

// snapshotOf writes c's snapshot with fixed metadata.
func snapshotOf(t testing.TB, c *fbc.Catalog) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, fbc.WriteSnapshot(c, &buf, fbc.SnapshotMeta{Name: "test", Source: fbc.SnapshotSource{Type: "fbc", Ref: "test"}}))
	return buf.Bytes()
}

// roundTrip writes c's snapshot to a file, loads it (keeping related images), and checks
// that the loaded catalog has the same facts and writes the same bytes. It returns the
// snapshot.
func roundTrip(t *testing.T, c *fbc.Catalog) []byte {
	t.Helper()
	snap := snapshotOf(t, c)
	path := filepath.Join(t.TempDir(), "snapshot.yaml")
	require.NoError(t, os.WriteFile(path, snap, 0o644))
	back, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, path)
	require.NoError(t, err, "%s", snap)
	require.Equal(t, facts(t, c), facts(t, back))
	require.Equal(t, string(snap), string(snapshotOf(t, back)), "writing a loaded snapshot again gives the same bytes")
	return snap
}
