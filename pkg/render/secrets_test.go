package render_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/internal/template/secret"
	"github.com/odlm-render/odlm-render/pkg/render"
)

// secretValues are the values of the input Secrets (stringData, decoded data) that appear
// nowhere else in the inputs, so that finding one in a result can only be a leak.
func secretValues(objs []*manifest.Object) []string {
	var values []string
	var elsewhere strings.Builder
	for _, o := range objs {
		if !secret.IsKind(o.APIVersion(), o.Kind()) {
			b, _ := manifest.MarshalJSON(o.Map)
			elsewhere.Write(b)
			continue
		}
		b, _ := manifest.MarshalJSON(o.Map["metadata"])
		elsewhere.Write(b)
		for _, f := range []string{"stringData", "data"} {
			m, _ := o.Map[f].(map[string]any)
			for _, v := range m {
				s, _ := v.(string)
				if f == "data" {
					d, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						continue
					}
					s = string(d)
				}
				values = append(values, s)
			}
		}
	}
	var out []string
	for _, v := range values {
		if len(v) >= 6 && !strings.Contains(elsewhere.String(), v) {
			out = append(out, v)
		}
	}
	return out
}

// TestNoResultCarriesASecretsValue renders every golden case with --explain under both
// Secret policies and checks that no result quotes a value of an input Secret.
func TestNoResultCarriesASecretsValue(t *testing.T) {
	t.Parallel()
	for _, c := range golden.Cases(t, casesDir) {
		if !c.Runnable() {
			continue // its inputs are partly reference data, absent here
		}
		in, opts := loadCase(t, c.Dir)
		values := secretValues(in.Objects)
		if len(values) == 0 {
			continue
		}
		for _, policy := range []render.SecretsMode{render.SecretsInline, render.SecretsForbid} {
			t.Run(c.Name()+"/"+string(policy), func(t *testing.T) {
				opts.Explain, opts.Secrets = true, policy
				results := fmt.Sprint(render.Render(in, opts).Results)
				for _, v := range values {
					assert.NotContains(t, results, v)
				}
			})
		}
	}
}

// TestSecretFieldsCoverEveryCopiedValue renders every golden case whose input Secrets hold
// values found nowhere else and checks Output.SecretFields: every text of such a value in a
// generated object other than a Secret lies under a field the output marks, so that a front
// door hiding the marked fields (odlm-render plan) hides every copy.
func TestSecretFieldsCoverEveryCopiedValue(t *testing.T) {
	t.Parallel()
	checked, absent := 0, 0
	for _, c := range golden.Cases(t, casesDir) {
		if !c.Runnable() {
			absent++ // its inputs are partly reference data, absent here
			continue
		}
		in, opts := loadCase(t, c.Dir)
		values := secretValues(in.Objects)
		if len(values) == 0 {
			continue
		}
		out := render.Render(in, opts)
		for _, o := range out.Objects {
			if !out.Generated[o] || secret.IsKind(o.APIVersion(), o.Kind()) {
				continue
			}
			walkStrings(o.Map, nil, func(path []manifest.PathStep, s string) {
				for _, v := range values {
					if strings.Contains(s, v) {
						checked++
						assert.True(t, out.SecretFields[o].Overlaps(path), "%s: %s %s holds a Secret's value and is not marked", c.Name(), o.Ref(), path)
					}
				}
			})
		}
	}
	if checked == 0 && absent > 0 {
		_, err := refdata.Root()
		refdata.Skip(t, fmt.Errorf("the cases that copy a Secret's value read reference data (%d cases not run): %w", absent, err))
	}
	assert.Positive(t, checked, "some golden case copies a Secret's value into a generated object")
}

// walkStrings calls f with the path and text of every string in v.
func walkStrings(v any, path []manifest.PathStep, f func([]manifest.PathStep, string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walkStrings(e, append(path[:len(path):len(path)], manifest.PathStep{Key: k}), f)
		}
	case []any:
		for i, e := range x {
			walkStrings(e, append(path[:len(path):len(path)], manifest.PathStep{Index: i, IsIndex: true}), f)
		}
	case string:
		f(path, x)
	}
}
