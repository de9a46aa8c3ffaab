package fbc_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/fbc"
)

// exampleIDs renders examples as "Kind/name" for compact assertions.
func exampleIDs(t *testing.T, b *fbc.Bundle) []string {
	t.Helper()
	ex, err := b.Examples()
	require.NoError(t, err)
	var ids []string
	for _, e := range ex {
		md, _ := e["metadata"].(map[string]any)
		ids = append(ids, fmt.Sprintf("%v/%v", e["kind"], md["name"]))
	}
	return ids
}

func TestRealCatalogs(t *testing.T) {
	c, err := fbc.Load(realCatalogs(t))
	require.NoError(t, err)
	require.Equal(t, []string{"ecr-secret-operator", "eda-k8s-operator", "kube-green", "kurrentdb-operator", "linstor-operator",
		"nfs-provisioner-operator", "nvidia-network-operator", "operator-certification-operator", "stackable-zookeeper-operator"}, c.PackageNames())

	nvidiaExamples := []string{
		"HostDeviceNetwork/example-hostdevice-network", "IPoIBNetwork/example-ipoibnetwork",
		"MacvlanNetwork/example-macvlannetwork", "NicClusterPolicy/nic-cluster-policy",
	}
	nvidiaModes := []fbc.InstallMode{{Type: "OwnNamespace", Supported: true}, {Type: "SingleNamespace", Supported: true}, {Type: "MultiNamespace", Supported: false}, {Type: "AllNamespaces", Supported: false}}
	allModes := []fbc.InstallMode{{Type: "OwnNamespace", Supported: true}, {Type: "SingleNamespace", Supported: true}, {Type: "MultiNamespace", Supported: true}, {Type: "AllNamespaces", Supported: true}}

	tests := []struct {
		pkg, channel   string
		defaultChannel string
		channels       []string
		head, version  string
		examples       []string
		modes          []fbc.InstallMode
	}{
		{pkg: "kube-green", channel: "alpha", defaultChannel: "alpha", channels: []string{"alpha"},
			head: "kube-green.v0.7.1", version: "0.7.1", examples: []string{"SleepInfo/sleepinfo-sample"},
			modes: []fbc.InstallMode{{Type: "OwnNamespace", Supported: false}, {Type: "SingleNamespace", Supported: false}, {Type: "MultiNamespace", Supported: false}, {Type: "AllNamespaces", Supported: true}}},
		{pkg: "nfs-provisioner-operator", channel: "alpha", defaultChannel: "alpha", channels: []string{"alpha"},
			head: "nfs-provisioner-operator.v0.0.9", version: "0.0.9", examples: []string{"NFSProvisioner/nfsprovisioner-sample"},
			modes: []fbc.InstallMode{{Type: "OwnNamespace", Supported: true}, {Type: "SingleNamespace", Supported: false}, {Type: "MultiNamespace", Supported: false}, {Type: "AllNamespaces", Supported: true}}},
		{pkg: "nvidia-network-operator", channel: "v26.4", defaultChannel: "stable",
			channels: []string{"stable", "v25.10", "v25.7", "v26.1", "v26.4"},
			head:     "nvidia-network-operator.v26.4.1", version: "26.4.1", examples: nvidiaExamples, modes: nvidiaModes},
		{pkg: "nvidia-network-operator", channel: "stable", defaultChannel: "stable",
			channels: []string{"stable", "v25.10", "v25.7", "v26.1", "v26.4"},
			head:     "nvidia-network-operator.v26.4.1", version: "26.4.1", examples: nvidiaExamples, modes: nvidiaModes},
		{pkg: "nvidia-network-operator", channel: "v25.7", defaultChannel: "stable",
			channels: []string{"stable", "v25.10", "v25.7", "v26.1", "v26.4"},
			head:     "nvidia-network-operator.v25.7.0", version: "25.7.0", examples: nvidiaExamples, modes: nvidiaModes},
		{pkg: "stackable-zookeeper-operator", channel: "stable", defaultChannel: "stable",
			channels: []string{"25.11", "26.3", "26.7", "stable"},
			head:     "zookeeper-operator.v26.7.0", version: "26.7.0", examples: nil, modes: allModes},
		{pkg: "stackable-zookeeper-operator", channel: "25.11", defaultChannel: "stable",
			channels: []string{"25.11", "26.3", "26.7", "stable"},
			head:     "zookeeper-operator.v25.11.0", version: "25.11.0", examples: nil, modes: allModes},
	}
	for _, tc := range tests {
		t.Run(tc.pkg+"/"+tc.channel, func(t *testing.T) {
			p, ok := c.Package(tc.pkg)
			require.True(t, ok)
			assert.Equal(t, tc.defaultChannel, p.DefaultChannel)
			assert.Equal(t, tc.channels, p.ChannelNames())
			assert.Contains(t, p.Source.File, tc.pkg)

			head, err := p.Channels[tc.channel].Head()
			require.NoError(t, err)
			assert.Equal(t, tc.head, head)

			b, err := p.HeadBundle(tc.channel)
			require.NoError(t, err)
			assert.Equal(t, tc.head, b.Name)
			assert.Equal(t, tc.head, b.CSVName, "new rendering: the bundle name is the CSV name")
			assert.Equal(t, tc.pkg, b.Package)
			assert.Equal(t, tc.version, b.Version)
			assert.NotEmpty(t, b.Image)
			assert.Equal(t, tc.modes, b.InstallModes)
			assert.Equal(t, tc.examples, exampleIDs(t, b))
			assert.Positive(t, b.Source.Line)
		})
	}
}

func TestRealCatalogDetails(t *testing.T) {
	c, err := fbc.Load(realCatalogs(t))
	require.NoError(t, err)

	t.Run("zookeeper has no alm-examples", func(t *testing.T) {
		p, _ := c.Package("stackable-zookeeper-operator")
		require.Len(t, p.Bundles, 3)
		for _, b := range p.Bundles {
			_, has := b.Annotations["alm-examples"]
			assert.False(t, has, b.Name)
			ex, err := b.Examples()
			require.NoError(t, err)
			assert.Empty(t, ex)
		}
	})
	t.Run("nvidia: 4 example kinds in every bundle and provided GVKs", func(t *testing.T) {
		p, _ := c.Package("nvidia-network-operator")
		require.Len(t, p.Bundles, 5)
		for _, b := range p.Bundles {
			ex, err := b.Examples()
			require.NoError(t, err)
			assert.Len(t, ex, 4, b.Name)
			assert.Contains(t, b.ProvidedGVKs, fbc.GVK{Group: "mellanox.com", Version: "v1alpha1", Kind: "NicClusterPolicy"})
			assert.Empty(t, b.RelatedImages, "kept only with LoadOptions.RelatedImages")
		}
	})
	t.Run("kube-green channel entries keep file order", func(t *testing.T) {
		p, _ := c.Package("kube-green")
		ch := p.Channels["alpha"]
		require.Len(t, ch.Entries, 10)
		assert.Equal(t, fbc.ChannelEntry{Name: "kube-green.v0.3.0"}, ch.Entries[0])
		assert.Equal(t, fbc.ChannelEntry{Name: "kube-green.v0.7.1", Replaces: "kube-green.v0.7.0"}, ch.Entries[9])
		b := p.Bundles["kube-green.v0.7.1"]
		// OLM's annotations are kept, the catalog UI's are not.
		assert.Contains(t, b.Annotations, "alm-examples")
		assert.NotContains(t, b.Annotations, "capabilities")
		assert.NotContains(t, b.Annotations, "description")
	})
	t.Run("related images on demand", func(t *testing.T) {
		c, err := fbc.LoadWith(fbc.LoadOptions{RelatedImages: true}, realCatalogs(t))
		require.NoError(t, err)
		p, _ := c.Package("nvidia-network-operator")
		for _, b := range p.Bundles {
			assert.NotEmpty(t, b.RelatedImages)
		}
	})
	t.Run("filter keeps one real package", func(t *testing.T) {
		c, err := fbc.LoadWith(fbc.LoadOptions{Packages: []string{"kube-green"}}, realCatalogs(t))
		require.NoError(t, err)
		assert.Equal(t, []string{"kube-green"}, c.PackageNames())
	})
}
