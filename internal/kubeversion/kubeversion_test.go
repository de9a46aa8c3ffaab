package kubeversion_test

import (
	"testing"

	"github.com/blang/semver/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/kubeversion"
)

// TestParseCluster: the cluster's version is read tolerantly (a v, a missing minor or
// patch, a pre-release or build suffix).
func TestParseCluster(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want semver.Version
		bad  bool
	}{
		{in: "1.31.2", want: semver.Version{Major: 1, Minor: 31, Patch: 2}},
		{in: "v1.31.2", want: semver.Version{Major: 1, Minor: 31, Patch: 2}},
		{in: "1.31", want: semver.Version{Major: 1, Minor: 31}},
		{in: "v1", want: semver.Version{Major: 1}},
		{in: "1.31.2+k3s1", want: semver.Version{Major: 1, Minor: 31, Patch: 2}},
		{in: "v1.29.4-gke.1043002", want: semver.Version{Major: 1, Minor: 29, Patch: 4}},
		{in: "latest", bad: true},
		{in: "1.x", bad: true},
		{in: "1.31.2.3", bad: true},
		{in: "", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			v, err := kubeversion.ParseCluster(tc.in)
			if tc.bad {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, v)
		})
	}
}

// TestProblem: OLM's verdict on a bundle's minKubeVersion (read strictly,
// after a leading v) against the cluster's version.
func TestProblem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, min, kube string
		want            string // a substring of the problem; "" for none
	}{
		{name: "none set", min: "", kube: "1.20.0"},
		{name: "below", min: "1.27.0", kube: "v1.29.4+k3s1"},
		{name: "equal", min: "1.29.0", kube: "1.29"},
		{name: "equal to a patch the cluster has", min: "1.29.4", kube: "v1.29.4+k3s1"},
		{name: "above", min: "1.30.0", kube: "v1.29.4+k3s1", want: "bundle b.v1 needs Kubernetes 1.30.0 or later (minKubeVersion), and the cluster is v1.29.4+k3s1"},
		{name: "above by a patch", min: "1.29.5", kube: "1.29.4", want: "needs Kubernetes 1.29.5"},
		{name: "a leading v", min: "v1.31.0", kube: "1.30.9", want: "needs Kubernetes v1.31.0"},
		{name: "a leading v, met", min: "v1.31.0", kube: "1.31.0"},
		{name: "no patch: OLM cannot read it", min: "1.25", kube: "1.31.2", want: `minKubeVersion "1.25", which OLM cannot read`},
		{name: "not a version", min: "latest", kube: "1.31.2", want: `minKubeVersion "latest", which OLM cannot read`},
		{name: "a mapping kept as JSON", min: `{"major":1}`, kube: "1.31.2", want: "which OLM cannot read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := kubeversion.ParseCluster(tc.kube)
			require.NoError(t, err)
			got := kubeversion.Problem("b.v1", tc.min, tc.kube, v)
			if tc.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tc.want)
			}
		})
	}
}
