package render_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/golden"
	"github.com/odlm-render/odlm-render/internal/manifest"
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
