package crd_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

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

// BenchmarkParseAndCheckWithRules reads Keycloak's CRD (CEL rules, which the server compiles
// twice: to estimate their cost when it reads the CRD, and to run them) and checks IBM's
// Keycloak custom resource against it.
func BenchmarkParseAndCheckWithRules(b *testing.B) {
	path := refdata.Testdata(b, "bundles/keycloak-operator-26.7.1/manifests/keycloaks.k8s.keycloak.org-v1.crd.yml")
	data, err := os.ReadFile("../../testdata/render/real-foundational-services-on-a-cluster/expected/19_keycloak_cs-services_cs-keycloak.yaml")
	require.NoError(b, err)
	var m map[string]any
	require.NoError(b, yaml.Unmarshal(data, &m))
	b.ReportAllocs()
	for b.Loop() {
		d := load(b, path)
		res, err := d.Check(m)
		require.NoError(b, err)
		require.Empty(b, res.Problems)
	}
}
