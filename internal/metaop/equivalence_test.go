package metaop_test

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/inputs"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/metaop"
	"github.com/odlm-render/odlm-render/internal/naming"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// TestRenderingMetaCRsEqualsRenderingTheirConversion renders every meta-* golden case that
// succeeds twice: its Meta Operator CRs directly, and what Convert makes of them (printed
// and read back, as `odlm-render convert` hands them on). Both give the same operand CRs
// and other objects, and the same Subscriptions and OperatorGroups except for what the
// direct render defines as the Meta Operator's: the css-control label instead of
// opreq-control, and no ODLM annotations for the converted registry and request.
//
// Inputs are not kept (KeepInputs would keep Meta CRs in one render and ODLM CRs in the
// other), and cases with css-control Subscriptions among the inputs are left out: the
// direct render reconciles them as the Meta Operator does, ODLM leaves them alone.
func TestRenderingMetaCRsEqualsRenderingTheirConversion(t *testing.T) {
	t.Parallel()
	var tested, metaLabelled, absent atomic.Int64
	// the cases run in parallel inside a group, which returns once they have all run
	t.Run("cases", func(t *testing.T) {
		for _, c := range golden.Cases(t, "../../testdata/render") {
			if !strings.HasPrefix(c.Name(), "meta-") || len(c.ExpectedResults(t, "error")) > 0 {
				continue
			}
			if !c.Runnable() {
				absent.Add(1) // its subtest skips: its catalogs are reference data, absent here
			}
			t.Run(c.Name(), func(t *testing.T) {
				t.Parallel()
				docs, err := inputs.ReadPaths(c.InputPaths(t), nil)
				require.NoError(t, err)
				set, err := inputs.Classify(docs)
				require.NoError(t, err)
				for _, o := range set.Resources {
					if _, css := o.Labels()[metaop.ControlLabel]; css && o.Kind() == "Subscription" {
						t.Skip("css-control Subscriptions among the inputs: ODLM does not adopt them")
					}
				}
				cat, err := inputs.LoadCatalog(c.CatalogPaths(t, "../../testdata/catalogs"), set.CatalogBlobs)
				require.NoError(t, err)
				opts := render.Options{DefaultNamespace: c.DefaultNamespace}

				direct := render.Render(render.Inputs{Objects: set.Resources, Catalog: cat}, opts)
				require.False(t, direct.Results.HasErrors(), "%v", direct.Results)

				conv := metaop.Analyze(set.Resources, metaop.Options{DefaultNamespace: c.DefaultNamespace})
				converted, results := metaop.Convert(set.Resources, metaop.Options{DefaultNamespace: c.DefaultNamespace})
				require.False(t, results.HasErrors(), "%v", results)
				var buf bytes.Buffer
				require.NoError(t, manifest.WriteYAML(&buf, converted))
				reread, err := manifest.Decode("converted.yaml", buf.Bytes())
				require.NoError(t, err)
				viaODLM := render.Render(render.Inputs{Objects: reread, Catalog: cat}, opts)
				require.False(t, viaODLM.Results.HasErrors(), "%v", viaODLM.Results)

				for _, o := range direct.Objects {
					if o.Kind() == "Subscription" && o.Labels()[metaop.ControlLabel] == "true" {
						metaLabelled.Add(1)
						assert.NotContains(t, o.Labels(), naming.ControlLabel)
					}
				}
				for _, o := range viaODLM.Objects {
					assert.NotContains(t, o.Labels(), metaop.ControlLabel, "%s", o.Ref())
				}

				assert.Equal(t, normalize(t, conv, direct.Objects), normalize(t, conv, viaODLM.Objects))
				tested.Add(1)
			})
		}
	})
	if tested.Load() < 3 && absent.Load() > 0 {
		_, err := refdata.Root()
		refdata.Skip(t, fmt.Errorf("%d meta-* cases read reference data: %w", absent.Load(), err))
	}
	assert.GreaterOrEqual(t, tested.Load(), int64(3))
	assert.GreaterOrEqual(t, metaLabelled.Load(), int64(3), "the cases render Meta Subscriptions")
}

// normalize prints objects with the Meta/ODLM differences of Subscriptions and
// OperatorGroups taken out: both control labels, and the annotations ODLM writes for the
// converted units (keys "<ns>.<name>/…" and "<ns>.<name>.<operator>/…").
func normalize(t *testing.T, conv *metaop.Conversion, objs []*manifest.Object) string {
	t.Helper()
	var prefixes []string
	for _, u := range conv.Units {
		prefixes = append(prefixes, u.Namespace+"."+u.Name+"/", u.Namespace+"."+u.Name+".")
	}
	var out []*manifest.Object
	for _, o := range objs {
		cp := manifest.New(deepCopy(t, o.Map))
		if o.Kind() == "Subscription" || o.Kind() == "OperatorGroup" {
			md := manifest.EnsureMap(cp.Map, "metadata")
			labels := manifest.EnsureMap(md, "labels")
			delete(labels, metaop.ControlLabel)
			delete(labels, naming.ControlLabel)
			annotations := manifest.EnsureMap(md, "annotations")
			for k := range annotations {
				for _, p := range prefixes {
					if strings.HasPrefix(k, p) {
						delete(annotations, k)
					}
				}
			}
			for _, f := range []string{"labels", "annotations"} {
				if len(manifest.EnsureMap(md, f)) == 0 {
					delete(md, f)
				}
			}
		}
		out = append(out, cp)
	}
	var buf bytes.Buffer
	require.NoError(t, manifest.WriteYAML(&buf, out))
	return buf.String()
}

func deepCopy(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := manifest.MarshalJSON(m)
	require.NoError(t, err)
	v, err := manifest.DecodeJSONValue(b)
	require.NoError(t, err)
	return v.(map[string]any)
}
