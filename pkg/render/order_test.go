package render_test

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// dump prints everything a render returns: every object (also when there are errors,
// so that partial state is compared too), whether the render made it, and the results.
func dump(t testing.TB, out render.Output) string {
	t.Helper()
	var b strings.Builder
	for _, o := range out.Objects {
		y, err := manifest.MarshalYAML(o.Map)
		require.NoError(t, err)
		if out.Generated[o] {
			b.WriteString("# generated\n")
		}
		b.Write(y)
		b.WriteString("---\n")
	}
	b.WriteString(strings.Join(resultStrings(out.Results), "\n"))
	return b.String()
}

func resultStrings(rs diag.Results) []string {
	var out []string
	for _, r := range rs {
		out = append(out, "["+string(r.Severity)+"] "+r.String())
	}
	return out
}

// TestInputOrderDoesNotMatter renders every golden case with its input documents in file
// order, reversed and shuffled, and requires byte-identical output. It also checks that a
// render leaves its input objects unchanged.
func TestInputOrderDoesNotMatter(t *testing.T) {
	t.Parallel()
	for _, c := range golden.Cases(t, casesDir) {
		dir := c.Dir
		t.Run(c.Name(), func(t *testing.T) {
			in, opts := loadCase(t, dir)
			before := dumpObjects(t, in.Objects)
			want := dump(t, render.Render(in, opts))
			require.Equal(t, before, dumpObjects(t, in.Objects), "Render modified its inputs")

			orders := map[string]func([]*manifest.Object){
				"reversed": slices.Reverse[[]*manifest.Object],
			}
			for seed := int64(1); seed <= 3; seed++ {
				rng := rand.New(rand.NewSource(seed))
				orders["shuffled-"+string(rune('0'+seed))] = func(docs []*manifest.Object) {
					rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
				}
			}
			for name, order := range orders {
				in, opts := loadCaseOrdered(t, dir, order)
				require.Equal(t, want, dump(t, render.Render(in, opts)), "inputs %s", name)
			}
		})
	}
}

func dumpObjects(t testing.TB, objs []*manifest.Object) string {
	t.Helper()
	var b strings.Builder
	for _, o := range objs {
		y, err := manifest.MarshalYAML(o.Map)
		require.NoError(t, err)
		b.Write(y)
		b.WriteString("---\n")
	}
	return b.String()
}
