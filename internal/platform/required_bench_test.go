package platform

import "testing"

// BenchmarkMissingRequired walks a Deployment's pod template (containers, volumes, ports),
// the built-in check every emitted Deployment gets.
func BenchmarkMissingRequired(b *testing.B) {
	container := func(name string) any {
		return map[string]any{"name": name, "image": "registry/x:1", "ports": []any{map[string]any{"containerPort": 8080}},
			"env": []any{map[string]any{"name": "A", "value": "b"}}}
	}
	obj := map[string]any{"metadata": map[string]any{"name": "d"}, "spec": map[string]any{
		"selector": map[string]any{"matchLabels": map[string]any{"app": "d"}},
		"template": map[string]any{"spec": map[string]any{
			"containers": []any{container("a"), container("b")},
			"volumes":    []any{map[string]any{"name": "v", "configMap": map[string]any{"name": "c"}}},
		}}}}
	b.ReportAllocs()
	for b.Loop() {
		if got := MissingRequired("apps/v1", "Deployment", obj); got != nil {
			b.Fatal(got)
		}
	}
}
