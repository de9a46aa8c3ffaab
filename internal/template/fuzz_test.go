package template_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/merge"
	"github.com/odlm-render/odlm-render/internal/template"
)

// FuzzResolve: any JSON input resolves or fails without a panic, leaves its input untouched,
// and never shows the planted Secret value in an error or a Use.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		`{"v":{"templatingValueFrom":{"configMapKeyRef":{"name":"cm","key":"arr"}}}}`,
		`{"v":{"templatingValueFrom":{"secretKeyRef":{"name":"sec","key":"pw"},"required":true}}}`,
		`{"v":{"templatingValueFrom":{"objectRef":{"apiVersion":"v1","kind":"Secret","name":"sec","path":".data[?(@.x==\"y\")]"}}}}`,
		`{"v":{"templatingValueFrom":{"objectRef":{"apiVersion":"v1","kind":"Service","name":"svc","path":".spec.ports[*].port+x"}}}}`,
		`{"v":{"templatingValueFrom":{"default":{"defaultValue":"d","secretKeyRef":{"name":"bad","key":"k"}}}}}`,
		`{"l":[{"a":{"templatingValueFrom":{"conditional":{"expression":{"and":[{"value":{"literal":"1"}},{"not":{"equal":{"left":{"literal":"1Gi"},"right":{"literal":"1024Mi"}}}}]},"then":{"array":[{"map":{"k":{"secretKeyRef":{"name":"sec","key":"pw"}},"n":1}},{"boolean":true},null]},"else":{"literal":"[1,2]"}}}}}]}`,
		`{"v":{"templatingValueFrom":{"conditional":{"expression":{"or":[null]}}}}}`,
		`{"v":{"templatingValueFrom":{"conditional":{"expression":{"greaterThan":{"left":{"literal":"NaN"},"right":{"literal":"1e999"}}}}}}}`,
		`{"v":{"templatingValueFrom":7},"w":[[{"templatingValueFrom":{}}]]}`,
	} {
		f.Add([]byte(s))
	}
	r := newReader(f, fixtures)
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := manifest.DecodeJSONValue(data)
		if err != nil {
			return
		}
		before := merge.DeepCopy(in)
		out, uses, err := template.Resolve(in, template.Context{Namespace: "ns", Reader: r})
		if !merge.Equal(before, in) {
			t.Fatalf("input modified")
		}
		if err != nil {
			var te *template.Error
			if !errors.As(err, &te) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if out != nil || uses != nil {
				t.Fatalf("partial result with an error")
			}
			for _, secret := range []string{"PLANTED", b64(planted)} {
				if strings.Contains(err.Error(), secret) && !strings.Contains(string(data), secret) {
					t.Fatalf("secret in error: %v", err)
				}
			}
		}
		for _, u := range uses {
			if u.Secret && u.Value != "" {
				t.Fatalf("secret use with a value")
			}
			if strings.Contains(u.Value, planted) && !strings.Contains(string(data), planted) {
				t.Fatalf("secret in use %+v", u)
			}
		}
		if _, err := manifest.MarshalJSON(out); err != nil && out != nil {
			t.Fatalf("result is not JSON: %v", err)
		}
	})
}
