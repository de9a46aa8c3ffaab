package crd_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/refdata"
)

// BenchmarkParseAndCheck reads kube-green's SleepInfo CRD and checks one object against it:
// what a render pays for each bundle CRD it validates against.
func BenchmarkParseAndCheck(b *testing.B) {
	m := map[string]any{"apiVersion": "kube-green.com/v1alpha1", "kind": "SleepInfo",
		"metadata": map[string]any{"name": "a", "namespace": "ns"},
		"spec":     map[string]any{"weekdays": "1-5", "sleepAt": "20:00", "timeZone": "Europe/Rome"}}
	path := refdata.Path(b, sleepInfoRef)
	b.ReportAllocs()
	for b.Loop() {
		d := load(b, path)
		res, err := d.Check(m)
		require.NoError(b, err)
		require.Empty(b, res.Problems)
	}
}
