package template_test

import (
	"testing"

	"github.com/odlm-render/odlm-render/internal/template"
)

// benchValue holds conditionals over every kind of expression (comparisons of quantities,
// numbers and strings, and, or, not, value) and reference look-ups.
const benchValue = `
size: {templatingValueFrom: {conditional: {expression: {greaterThan: {left: {configMapKeyRef: {name: cm, key: q1}}, right: {literal: 512Mi}}}, then: {literal: large}, else: {literal: small}}}}
env:
  templatingValueFrom:
    conditional:
      expression:
        and:
        - equal: {left: {configMapKeyRef: {name: cm, key: env}}, right: {literal: production}}
        - or:
          - lessThan: {left: {configMapKeyRef: {name: cm, key: num}}, right: {literal: "10"}}
          - notEqual: {left: {objectRef: {apiVersion: v1, kind: Service, name: svc, path: .spec.host}}, right: {literal: other}}
        - not: {value: {configMapKeyRef: {name: cm, key: f}}}
      then: {configMapKeyRef: {name: cm, key: a}}
      else: {literal: none}
replicas: {templatingValueFrom: {objectRef: {apiVersion: apps/v1, kind: Deployment, name: dep, path: .status.replicas}}}
`

// BenchmarkResolve resolves benchValue against the fixtures.
func BenchmarkResolve(b *testing.B) {
	r := newReader(b, fixtures)
	in := value(b, benchValue)
	ctx := template.Context{Namespace: "ns", Reader: r}
	for b.Loop() {
		r.reads = r.reads[:0]
		if _, _, err := template.Resolve(in, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
