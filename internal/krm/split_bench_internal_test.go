package krm

import (
	"fmt"
	"strings"
	"testing"
)

// fleetList is a block-style ResourceList of n ConfigMaps, as kpt and kustomize write one.
func fleetList(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-%d\n    namespace: ns\n    annotations:\n      config.kubernetes.io/index: '0'\n  # a comment\n  data:\n    key: value-%d\n    text: |\n      line one\n      line two\n\n", i, i)
	}
	b.WriteString("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n")
	return []byte(b.String())
}

func BenchmarkSplitList(b *testing.B) {
	data := fleetList(5000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := splitList(data); !ok {
			b.Fatal("not split")
		}
	}
}
